import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { deleteRedisKeys } from '../../helpers/app.js';
import { REDIS_URL } from '../../helpers/backends.js';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';
import { NO_BUNDLE_COVERAGE, operatorEnv } from '../../helpers/processes.js';

// Three boots of the app through tsx on a machine that may be busy.
t.setTimeout(480_000);

/** True while any process of the group is alive (signal 0 only checks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

/**
 * The package.json scripts as an operator runs them (`npm start`, `npm run web`, `npm run worker`), in a
 * process group of their own: a SIGTERM to npm alone must reach the node process (which logs that it
 * is shutting down) and leave no process of the group behind. A shell or the tsx CLI between npm and
 * node swallowed the signal and left node running.
 */
/** The JSON log line whose message starts with `ready`, once written whole. */
function readyLine(output: string, ready: string): Record<string, unknown> | undefined {
  const line = output.split('\n').slice(0, -1).find((candidate) => candidate.includes(`"msg":"${ready}`));
  return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
}

/**
 * Issue #32: the start log says where the API, the console and the queue dashboard are, and each
 * address answers as what it claims to be. `npm start` runs with a dashboard password, `npm run web`
 * without one (its line says the dashboard is not mounted).
 */
async function checkAddresses(t: Test, line: Record<string, unknown> | undefined, dashboard: boolean) {
  const { api, console: consoleUrl, queueDashboard, msg } = (line ?? {}) as Record<string, string | null>;
  t.match(api, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/, 'the API address');
  t.match(consoleUrl, /^http:\/\/127\.0\.0\.1:\d+\/app$/, 'the console at /app');
  t.equal(consoleUrl, api?.replace(/\/api\/v1$/, '/app'), 'on the API\'s server');
  t.match(msg, `API ${api}, console ${consoleUrl}, queue dashboard `, 'the message says them in words');
  const health = await fetch(`${api}/health`);
  t.equal(health.status, 200, 'the API answers its health check');
  // 200 once built, 503 ("run npm run build") when the console was never built: never a 404.
  const page = await fetch(consoleUrl!);
  t.ok([200, 503].includes(page.status), `the console route answers (${page.status})`);
  if (dashboard) {
    t.equal(queueDashboard, api?.replace(/\/api\/v1$/, '/admin/queues'), 'the queue dashboard at /admin/queues');
    const board = await fetch(queueDashboard!);
    t.equal(board.status, 401, 'the dashboard asks for its credentials');
    t.match(board.headers.get('www-authenticate'), /^Basic realm="Shopwright queues"/, 'with its Basic realm');
  } else {
    t.equal(queueDashboard, null, 'no dashboard address without a password');
    t.match(msg, 'queue dashboard not mounted (set QUEUE_DASHBOARD_PASSWORD)', 'and says how to mount it');
  }
}

for (const [script, ready] of [
  ['start', 'shopwright running'],
  ['web', 'api listening'],
  ['worker', 'workers running']
] as const) {
  t.test(`SIGTERM to \`npm run ${script}\` stops node and leaves no process of its group`, async (t) => {
    const name = `sw_test_signals_${script}_${process.pid}_${randomBytes(3).toString('hex')}`;
    const databaseUrl = await createTestDatabase(name);
    const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-test-'));
    const child = spawn('npm', ['run', '--silent', script], {
      detached: true,
      env: {
        ...process.env,
        ...operatorEnv(databaseUrl, storageDir),
        ...(script === 'start' ? NO_BUNDLE_COVERAGE : {}),
        REDIS_PREFIX: `swt:${name}`,
        QUEUE_DASHBOARD_PASSWORD: script === 'start' ? 'a-password-for-the-dashboard' : ''
      },
      stdio: ['ignore', 'pipe', 'pipe']
    });
    const pgid = child.pid!;
    t.teardown(async () => {
      // The old scripts left node running: never leak it past this test.
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
      await dropTestDatabase(name);
      await deleteRedisKeys(REDIS_URL, `swt:${name}:*`);
      await rm(storageDir, { recursive: true, force: true });
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const npmExit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    t.ok(await waitFor(() => output.includes(ready), 120_000), `the ${script} process came up (${output.slice(-1000)})`);
    if (script !== 'worker') {
      await waitFor(() => readyLine(output, ready) !== undefined, 10_000);
      await t.test('its log line says where the API, the console and the queue dashboard are', (t) => checkAddresses(t, readyLine(output, ready), script === 'start'));
    }
    process.kill(pgid, 'SIGTERM');
    t.ok(await waitFor(() => !groupAlive(pgid), 30_000), `every process of the group exited (${output.slice(-1000)})`);
    t.match(output, /"msg":"shutting down".*"signal":"SIGTERM"|"signal":"SIGTERM".*"msg":"shutting down"/, 'node itself got the SIGTERM and stopped cleanly');
    t.equal(await npmExit, 0, 'npm reports the clean exit');
  });
}
