import { spawn } from 'node:child_process';
import { once } from 'node:events';
import t from 'tap';
import { deleteRedisKeys } from './helpers/app.js';
import { createTestDatabase, dropTestDatabase } from './helpers/databases.js';

t.test('npm start runs API and workers; SIGTERM finishes in-flight requests and exits cleanly', async (t) => {
  const name = `sw_test_shutdown_${process.pid}`;
  const databaseUrl = await createTestDatabase(name);
  t.teardown(async () => {
    await dropTestDatabase(name);
    await deleteRedisKeys('redis://127.0.0.1:6379', `swt:${name}:*`);
  });
  const port = 20000 + (process.pid % 20000);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, REDIS_PREFIX: `swt:${name}` },
    stdio: ['ignore', 'ignore', 'pipe']
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const base = `http://127.0.0.1:${port}/api/v1`;
  let healthy = false;
  for (let i = 0; i < 100 && !healthy; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    healthy = await fetch(`${base}/health`).then((r) => r.ok, () => false);
  }
  t.ok(healthy, `the service came up (${stderr})`);

  // scrypt makes signup take tens of milliseconds: long enough to be in flight at SIGTERM.
  const inFlight = fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'A', lastName: 'B', email: 'inflight@example.com', password: 'long enough pw', storeName: 'S', storeSlug: 'inflight-store' })
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const started = Date.now();
  child.kill('SIGTERM');
  const response = await inFlight;
  t.equal(response.status, 201, 'the in-flight request completed');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit');
  t.ok(Date.now() - started < 30_000, 'within 30 s');
  const after = await fetch(`${base}/health`).then(() => 'answered', () => 'refused');
  t.equal(after, 'refused', 'no longer accepting connections');
});
