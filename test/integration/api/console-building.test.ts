import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startConsoleBuild } from '../../../src/api/console/ensure-built.js';
import { buildApp } from '../../helpers/app.js';

/**
 * A build that waits for its go-ahead (a file appearing), then writes the console as vite would:
 * the test decides when the build "lands", with no real vite build (tens of seconds on a busy machine).
 */
const FAKE_BUILD = `
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
const dist = process.env.CONSOLE_DIST_DIR;
const go = path.join(path.dirname(dist), 'go');
while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 20));
await mkdir(dist, { recursive: true });
await writeFile(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/app/assets/index-abc.js"></script>');
await writeFile(path.join(dist, '.built-at'), new Date().toISOString());
`;

/**
 * Issue #38: the first `npm start` of a fresh clone answers /health at once, whatever the console's
 * state: the console builds in the background and /app says so (503, Retry-After, a page that
 * reloads itself), then serves the console when the build lands. Before, start awaited the build.
 */
t.test('with the console build absent, start does not wait for it: /health answers, /app says building, then serves the console', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'shopwright-console-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dist = path.join(root, 'dist');
  const script = path.join(root, 'fake-build.mjs');
  await writeFile(script, FAKE_BUILD);
  const app = await buildApp(t, { env: { CONSOLE_DIST_DIR: dist } });

  const before = await app.server.inject({ url: '/app' });
  t.equal(before.statusCode, 503, 'no build and none running: /app says the console is not built');
  t.match(before.payload, /not built/);

  const started = Date.now();
  const build = startConsoleBuild(app.ctx.log, dist, { script });
  t.teardown(() => build.stop());
  t.ok(Date.now() - started < 1_000, 'starting the build returns at once');
  const health = await app.request({ url: '/health' });
  t.equal(health.status, 200, '/health answers while the console builds');
  // The property, not a wall-clock bound (a busy test machine makes /health itself slow): health
  // answered while the build still runs, since the build waits for its go-ahead below.
  t.equal(await Promise.race([build.done.then(() => 'built'), new Promise((resolve) => setImmediate(() => resolve('building')))]), 'building', `/health did not wait for the build (${Date.now() - started} ms)`);

  for (const url of ['/app', '/app/orders/9b2c1f8e-0000-4000-8000-000000000000']) {
    const page = await app.server.inject({ url });
    t.equal(page.statusCode, 503, `${url}: 503 while building`);
    t.equal(page.headers['retry-after'], '5', 'with Retry-After');
    t.match(page.headers['content-type'], /^text\/html/);
    t.equal(page.headers['cache-control'], 'no-store', 'never cached');
    t.match(page.payload, /console is building/i, 'the page says it is building');
    t.match(page.payload, /http-equiv="refresh"/, 'and reloads itself (no inline script under the CSP)');
  }

  await writeFile(path.join(root, 'go'), '');
  t.equal(await build.done, 'built', 'the build lands');
  const page = await app.server.inject({ url: '/app' });
  t.equal(page.statusCode, 200, '/app serves the console once built');
  t.match(page.payload, /<div id="root">/);
  t.equal(page.headers['cache-control'], 'no-cache');

  const again = startConsoleBuild(app.ctx.log, dist, { script });
  t.equal(await again.done, 'fresh', 'a fresh build is not rebuilt at the next start');
});

t.test('a failed background build leaves /app saying how to build the console', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'shopwright-console-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dist = path.join(root, 'dist');
  const script = path.join(root, 'failing-build.mjs');
  await writeFile(script, 'process.exit(1);\n');
  const app = await buildApp(t, { env: { CONSOLE_DIST_DIR: dist } });
  const build = startConsoleBuild(app.ctx.log, dist, { script });
  t.equal(await build.done, 'failed');
  const page = await app.server.inject({ url: '/app' });
  t.equal(page.statusCode, 503);
  t.match(page.payload, /npm run build/, 'says how to build it, not "building" for ever');
});

/**
 * The build waits for the app's own start (`after`: the workers up), where it took a core from
 * it, and then runs below the app's priority: the build script reports its own niceness.
 */
t.test('the background build starts only once the app has started, and below its priority', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'shopwright-console-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dist = path.join(root, 'dist');
  const script = path.join(root, 'reporting-build.mjs');
  const started = path.join(root, 'started');
  // Writes its priority as soon as it runs; lands at once.
  await writeFile(
    script,
    `import os from 'node:os'; import { mkdir, writeFile } from 'node:fs/promises'; import path from 'node:path';
     await new Promise((resolve) => setTimeout(resolve, 200)); // the parent lowers the priority right after spawning
     await writeFile(${JSON.stringify(started)}, String(os.getPriority()));
     const dist = process.env.CONSOLE_DIST_DIR; await mkdir(dist, { recursive: true });
     await writeFile(path.join(dist, 'index.html'), '<!doctype html>'); await writeFile(path.join(dist, '.built-at'), 'now');`
  );
  const app = await buildApp(t, { env: { CONSOLE_DIST_DIR: dist } });
  let appStarted!: () => void;
  const after = new Promise<void>((resolve) => (appStarted = resolve));
  const build = startConsoleBuild(app.ctx.log, dist, { script, after });
  t.teardown(() => build.stop());

  await new Promise((resolve) => setTimeout(resolve, 500));
  t.notOk(existsSync(started), 'no build while the app is still starting');
  const page = await app.server.inject({ url: '/app' });
  t.match(page.payload, /console is building/i, '/app already says the console is building');

  appStarted();
  t.equal(await build.done, 'built', 'the build runs once the app has started');
  t.ok(Number(await readFile(started, 'utf8')) > os.getPriority(), 'below the priority of the app');
});
