import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { TEMPLATE_LIMITS } from '../src/platform/liquid/sandboxed-engine.js';

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

/**
 * Issue #21's "Done means": the README's security section lists what store templates may do and
 * the limits. The figures it gives are the sandbox's own.
 */
t.test("the README's security section lists what templates may do and the sandbox's limits", async (t) => {
  const readme = read('README.md');
  const start = readme.indexOf('## Security and hardening');
  t.ok(start >= 0, 'a security section');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const templates = section.slice(section.indexOf('### Store templates are untrusted code'), section.indexOf('\n### ', section.indexOf('### Store templates') + 1));
  t.ok(templates.length > 200, 'a subsection on store templates');
  for (const tag of ['if', 'for', 'assign', 'capture']) t.match(templates, `\`${tag}\``, `allows ${tag}`);
  t.match(templates, /`include`, `render` and `layout` are\s+refused/, 'names the refused tags');
  const words = templates.replace(/\s+/g, ' ');
  t.match(words, `${TEMPLATE_LIMITS.parseChars / 1024} Ki characters parsed`, 'the parse limit');
  t.match(words, `${TEMPLATE_LIMITS.renderMs} ms of CPU time`, 'the render time limit');
  t.match(words, `${TEMPLATE_LIMITS.outputBytes / 1024} KiB of output`, 'the output limit');
  t.match(words, `${TEMPLATE_LIMITS.allocations.toLocaleString('en-US')} allocated items or characters`, 'the allocation limit');
  t.match(words, /422 `template_invalid`/, 'what a refusal answers');
});
