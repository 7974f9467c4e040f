import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

// Read from the repository (tests run from its root), not from dist/.
const ROOT = process.cwd();
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * A new user installs the Node.js the README names: it must be the version `engines` asks for
 * (issue #21: the README said "Node.js 20" while `engines` wanted 20.19 or newer).
 */
t.test("the README's Node.js version is package.json's engines.node", async (t) => {
  const engines = (JSON.parse(read('package.json')) as { engines?: { node?: string } }).engines?.node ?? '';
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines)?.[1];
  t.ok(minimum, `engines.node is a minimum version (${engines})`);
  for (const file of ['README.md', 'CONTRIBUTING.md']) {
    const named = [...read(file).matchAll(/\bNode(?:\.js)?\s+v?(\d+(?:\.\d+){0,2})\b/g)].map((m) => m[1]);
    t.same(named.filter((version) => version !== minimum), [], `${file} names no other Node.js version than ${minimum}`);
    if (file === 'README.md') t.ok(named.includes(minimum), `README.md names Node.js ${minimum}`);
  }
});
