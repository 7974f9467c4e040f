import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { TEMPLATE_LIMITS } from '../../src/platform/liquid/sandboxed-engine.js';

// Read from the repository (tests run from its root), not from dist/.
const ROOT = process.cwd();
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The README and every page under docs/, by path from the root. */
const DOCUMENTS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The part of a Markdown text under one heading, up to the next heading of the same or a higher level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) return '';
  const level = /^#+/.exec(heading)![0].length;
  const next = new RegExp(`\\n#{1,${level}} `, 'g');
  next.lastIndex = start + heading.length + 2;
  const end = next.exec(text)?.index ?? text.length;
  return text.slice(start, end);
}

/**
 * A new user installs the Node.js the README names: it must be the version `engines` asks for
 * (issue #21: the README said "Node.js 20" while `engines` wanted 20.19 or newer).
 */
t.test("the README's Node.js version is package.json's engines.node", async (t) => {
  const engines = (JSON.parse(read('package.json')) as { engines?: { node?: string } }).engines?.node ?? '';
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines)?.[1];
  t.ok(minimum, `engines.node is a minimum version (${engines})`);
  for (const file of [...DOCUMENTS, 'CONTRIBUTING.md']) {
    const named = [...read(file).matchAll(/\bNode(?:\.js)?\s+v?(\d+(?:\.\d+){0,2})\b/g)].map((m) => m[1]);
    t.same(named.filter((version) => version !== minimum), [], `${file} names no other Node.js version than ${minimum}`);
    if (file === 'README.md') t.ok(named.includes(minimum), `README.md names Node.js ${minimum}`);
  }
});

/**
 * Issue #21's "Done means": the security document lists what store templates may do and the
 * limits (issue #32 moved it from the README to docs/security.md). The figures are the sandbox's own.
 */
t.test('docs/security.md lists what templates may do and the sandbox\'s limits', async (t) => {
  const templates = section(read('docs/security.md'), '## Store templates are untrusted code');
  t.ok(templates.length > 200, 'a section on store templates');
  for (const tag of ['if', 'for', 'assign', 'capture']) t.match(templates, `\`${tag}\``, `allows ${tag}`);
  t.match(templates, /`include`, `render` and `layout` are\s+refused/, 'names the refused tags');
  const words = templates.replace(/\s+/g, ' ');
  t.match(words, `${TEMPLATE_LIMITS.parseChars / 1024} Ki characters parsed`, 'the parse limit');
  t.match(words, `${TEMPLATE_LIMITS.renderMs} ms of CPU time`, 'the render time limit');
  t.match(words, `${TEMPLATE_LIMITS.outputBytes / 1024} KiB of output`, 'the output limit');
  t.match(words, `${TEMPLATE_LIMITS.allocations.toLocaleString('en-US')} allocated items or characters`, 'the allocation limit');
  t.match(words, /422 `template_invalid`/, 'what a refusal answers');
});

/**
 * Issue #32: the README is a door. Under 300 lines; its first screen says where the console is
 * (issue #37); it says how to run one test file; and it points at every page under docs/.
 */
t.test('the README is short, names the console on its first screen and links every docs page', async (t) => {
  const readme = read('README.md');
  const lines = readme.split('\n');
  t.ok(lines.length < 300, `under 300 lines (${lines.length})`);
  t.match(lines.slice(0, 25).join('\n'), /`\/app`|localhost:3000\/app/, 'the first screen names /app');
  t.match(readme, 'npm install && npm start', 'the start command');
  t.match(readme, /node dist\/test\/setup\/run-tap\.js --disable-coverage dist\/test\/\S+\.test\.js/, 'how to run one test file');
  for (const file of DOCUMENTS.filter((name) => name !== 'README.md')) t.match(readme, `](${file})`, `links ${file}`);
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

t.test('every relative link in the README and docs/ reaches a file, and its #anchor a heading there', async (t) => {
  const broken: string[] = [];
  let links = 0;
  for (const file of DOCUMENTS) {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      links += 1;
      const [where, anchor] = target!.split('#') as [string, string | undefined];
      const linked = where ? path.join(path.dirname(file), where) : file;
      if (!existsSync(path.join(ROOT, linked))) broken.push(`${file} → ${target}: no such file`);
      else if (anchor && linked.endsWith('.md') && ![...read(linked).matchAll(/^#{1,6} (.+)$/gm)].some((m) => anchorOf(m[1]!) === anchor)) {
        broken.push(`${file} → ${target}: no such heading`);
      }
    }
  }
  t.ok(links > 20, `found the links (${links})`);
  t.same(broken, [], 'none broken');
});

/**
 * Configuration in one table: every variable the app reads (src/config.ts, and the embedded
 * PostgreSQL's directory, read before the config) has a row, and every row is a variable it reads.
 */
t.test("the README's configuration table is every variable the app reads", async (t) => {
  const read_ = [read('src/config.ts'), read('src/db/embedded-postgres/entry.ts')].join('\n');
  const variables = new Set([...read_.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
  const table = section(read('README.md'), '## Configuration');
  const rows = new Set(
    table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!))
  );
  t.ok(variables.size > 50, `found the variables (${variables.size})`);
  t.same([...variables].filter((name) => !rows.has(name)).sort(), [], 'each variable has a row');
  t.same([...rows].filter((name) => !variables.has(name)).sort(), [], 'each row is a variable the app reads');
});
