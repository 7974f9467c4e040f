import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { deleteRedisKeys } from './helpers/app.js';
import { REDIS_URL } from './helpers/backends.js';
import { createTestDatabase, dropTestDatabase } from './helpers/databases.js';

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
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        REDIS_PREFIX: `swt:${name}`,
        STORAGE_DIR: storageDir,
        PASSWORD_HASH_COST: '1024'
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
    process.kill(pgid, 'SIGTERM');
    t.ok(await waitFor(() => !groupAlive(pgid), 30_000), `every process of the group exited (${output.slice(-1000)})`);
    t.match(output, /"msg":"shutting down".*"signal":"SIGTERM"|"signal":"SIGTERM".*"msg":"shutting down"/, 'node itself got the SIGTERM and stopped cleanly');
    t.equal(await npmExit, 0, 'npm reports the clean exit');
  });
}
