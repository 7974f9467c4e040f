import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';
import { NO_BUNDLE_COVERAGE, operatorEnv } from '../../helpers/processes.js';

// Two boots of the app and three bundle builds on a machine that may be busy.
t.setTimeout(300_000);

const root = process.cwd();
const launcher = path.join(root, 'scripts', 'start.mjs');

/** A cache of the test's own, inside the project: the packages the bundle leaves out resolve from there. */
async function projectTemp(): Promise<string> {
  await mkdir(path.join(root, '.cache'), { recursive: true });
  return mkdtemp(path.join(root, '.cache', 'test-start-'));
}

interface Manifest {
  node: string;
  inputs: Record<string, string>;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [launcher, ...args], { env: { ...process.env, ...NO_BUNDLE_COVERAGE, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/**
 * Issue #38: `npm start` runs the app from one bundle of our sources (scripts/start.mjs), built at
 * install and again only when a source it holds changed; it falls back to tsx where it cannot build.
 */
t.test('the start bundle: built once, reused while its sources are unchanged, rebuilt when one changes', async (t) => {
  const cache = await projectTemp();
  t.teardown(() => rm(cache, { recursive: true, force: true }));
  const env = { SHOPWRIGHT_START_CACHE: cache };
  const bundle = path.join(cache, 'start.mjs');

  t.equal((await run(['--build-only'], env)).code, 0, 'built');
  const manifest = JSON.parse(await readFile(path.join(cache, 'start.json'), 'utf8')) as Manifest;
  t.equal(manifest.node, process.version, 'for this Node.js');
  t.ok(manifest.inputs['src/start.ts'] && manifest.inputs['src/api/server.ts'] && manifest.inputs['migrations/index.ts'], 'holding the entry, the API and the migrations');
  t.notOk(Object.keys(manifest.inputs).some((file) => file.includes('node_modules')), 'and no package (they load from node_modules)');
  const built = (await stat(bundle)).mtimeMs;
  // Stack traces name the TypeScript sources: the bundle names its map beside it (not the name it
  // was written under), and the map's sources resolve to the project's files.
  t.equal((await readFile(bundle, 'utf8')).trimEnd().split('\n').pop(), '//# sourceMappingURL=start.mjs.map', 'the bundle names its source map');
  const map = JSON.parse(await readFile(`${bundle}.map`, 'utf8')) as { sources: string[] };
  t.ok(map.sources.map((source) => path.resolve(cache, source)).includes(path.join(root, 'src', 'start.ts')), 'whose sources are the project\'s files');

  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal((await run(['--build-only'], env)).code, 0);
  t.equal((await stat(bundle)).mtimeMs, built, 'unchanged sources: the bundle is not rebuilt');

  // A source changed since the build: as if src/start.ts had another size and time then.
  await writeFile(path.join(cache, 'start.json'), JSON.stringify({ ...manifest, inputs: { ...manifest.inputs, 'src/start.ts': '1:1' } }));
  t.equal((await run(['--build-only'], env)).code, 0);
  t.ok((await stat(bundle)).mtimeMs > built, 'a changed source: rebuilt');
  const again = JSON.parse(await readFile(path.join(cache, 'start.json'), 'utf8')) as Manifest;
  t.equal(again.inputs['src/start.ts'], manifest.inputs['src/start.ts'], 'and the manifest holds the source as it is now');
});

for (const [how, cacheOf] of [
  ['from the bundle', (dir: string) => dir],
  // A file where the cache directory should be: nothing can be written there.
  ['under tsx when no bundle can be written', (dir: string) => path.join(dir, 'a-file', 'start')]
] as const) {
  t.test(`npm start runs ${how}, and stops cleanly on SIGTERM`, async (t) => {
    const dir = await projectTemp();
    await writeFile(path.join(dir, 'a-file'), '');
    // A console built in the future: no background build (its state does not matter here).
    const consoleDist = path.join(dir, 'console-dist');
    await mkdir(consoleDist);
    await writeFile(path.join(consoleDist, '.built-at'), '');
    const future = new Date(Date.now() + 86_400_000);
    await utimes(path.join(consoleDist, '.built-at'), future, future);
    const name = `sw_test_start_bundle_${process.pid}_${randomBytes(3).toString('hex')}`;
    const databaseUrl = await createTestDatabase(name);
    t.teardown(async () => {
      await dropTestDatabase(name);
      await rm(dir, { recursive: true, force: true });
    });
    const child = spawn(process.execPath, [launcher], {
      env: {
        ...process.env,
        ...operatorEnv(databaseUrl, path.join(dir, 'storage')),
        ...NO_BUNDLE_COVERAGE,
        SHOPWRIGHT_START_CACHE: cacheOf(dir),
        REDIS_URL: '',
        CONSOLE_DIST_DIR: consoleDist
      },
      stdio: ['ignore', 'pipe', 'pipe']
    });
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const until = Date.now() + 120_000;
    while (!output.includes('shopwright running') && child.exitCode === null && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    t.match(output, 'shopwright running', `it came up (${output.slice(-1500)})`);
    if (how === 'from the bundle') t.notMatch(output, 'running under tsx', 'from the bundle, not tsx');
    else t.match(output, /npm start: running under tsx \(no bundle: /, 'under tsx, saying why');
    child.kill('SIGTERM');
    t.equal(await exited, 0, 'a clean exit');
  });
}
