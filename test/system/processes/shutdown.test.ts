import { spawn } from 'node:child_process';
import { once } from 'node:events';
import t from 'tap';
import { deleteRedisKeys } from '../../helpers/app.js';
import { REDIS_URL } from '../../helpers/backends.js';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';
import { freePort } from '../../helpers/free-port.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

// Four `npm start` processes, each compiling the sources with tsx at boot and allowed 60 s for it:
// on a loaded machine (a full run beside other work) they took 45-60 s each, past tap's 120 s.
t.setTimeout(300_000);

t.test('npm start runs API and workers; SIGTERM finishes in-flight requests and jobs, then exits cleanly', async (t) => {
  const name = `sw_test_shutdown_${process.pid}`;
  const databaseUrl = await createTestDatabase(name);
  // A slow SMTP server keeps a test-email request (and its email job) in flight when SIGTERM lands.
  const smtp = await new SmtpCapture({ delayMs: 1_500 }).start();
  t.teardown(async () => {
    await smtp.stop();
    await dropTestDatabase(name);
    await deleteRedisKeys(REDIS_URL, `swt:${name}:*`);
  });
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `swt:${name}`,
      SMTP_URL: smtp.url,
      PASSWORD_HASH_COST: '1024'
    },
    stdio: ['ignore', 'ignore', 'pipe']
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const base = `http://127.0.0.1:${port}/api/v1`;
  let healthy = false;
  for (let i = 0; i < 300 && !healthy; i++) { // up to 60 s on a loaded machine
    await new Promise((resolve) => setTimeout(resolve, 200));
    healthy = await fetch(`${base}/health`).then((r) => r.ok, () => false);
  }
  t.ok(healthy, `the service came up (${stderr})`);

  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'A', lastName: 'B', email: 'inflight@example.com', password: 'long enough pw', storeName: 'S', storeSlug: 'inflight-store' })
  });
  const { data } = (await signup.json()) as { data: { accessToken: string; store: { id: string } } };
  const inFlight = fetch(`${base}/admin/store/email/test`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${data.accessToken}`, 'x-store-id': data.store.id },
    body: JSON.stringify({ toEmail: 'slow@example.com' })
  });
  // Wait until the email job has reached the SMTP server: the request is certainly being handled.
  for (let i = 0; i < 100 && smtp.connections === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.ok(smtp.connections > 0, 'the email job is talking to the SMTP server');

  const started = Date.now();
  child.kill('SIGTERM');
  const response = await inFlight;
  t.equal(response.status, 200, 'the in-flight request (waiting on its job) completed');
  t.equal(smtp.messages.length, 1, 'the in-flight job delivered its email');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit');
  t.ok(Date.now() - started < 30_000, 'within 30 s');
  const after = await fetch(`${base}/health`).then(() => 'answered', () => 'refused');
  t.equal(after, 'refused', 'no longer accepting connections');
});

t.test('npm start with Redis down at boot: the API answers (health 503, redis disconnected) and SIGTERM still exits', async (t) => {
  const name = `sw_test_boot_no_redis_${process.pid}`;
  const databaseUrl = await createTestDatabase(name);
  t.teardown(() => dropTestDatabase(name));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'silent',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      // Nothing listens on port 1.
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_PREFIX: `swt:${name}`
    },
    stdio: ['ignore', 'ignore', 'pipe']
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let health: { status: number; body: any } | null = null;
  for (let i = 0; i < 300 && !health; i++) { // up to 60 s: tsx compiles the sources at boot, slow on a loaded machine
    await new Promise((resolve) => setTimeout(resolve, 200));
    health = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(async (r) => ({ status: r.status, body: await r.json() }), () => null);
  }
  t.ok(health, `the API listens although Redis is down (${stderr})`);
  t.equal(health?.status, 503);
  t.match(health?.body, { data: { status: 'degraded', database: 'connected', redis: 'disconnected' } });
  const started = Date.now();
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit without ever having started the workers');
  t.ok(Date.now() - started < 20_000);
});

for (const { kind, env, skip } of [
  { kind: 'postgres queues', env: { REDIS_URL: '' }, skip: false as const },
  { kind: 'redis queues', env: {}, skip: REDIS_URL ? (false as const) : 'REDIS_URL is unset: the Redis queue backend needs a Redis' }
]) {
  t.test(`npm start (${kind}): SIGTERM the moment /health first answers, while the workers still start, exits cleanly`, { skip }, async (t) => {
    const name = `sw_test_early_stop_${process.pid}_${kind.split(' ')[0]}`;
    const databaseUrl = await createTestDatabase(name);
    t.teardown(async () => {
      await dropTestDatabase(name);
      await deleteRedisKeys(REDIS_URL, `swt:${name}:*`);
    });
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
      env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, REDIS_PREFIX: `swt:${name}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    t.teardown(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    // What the setup bench does: poll /health closely and stop the process on the first answer.
    let healthy = false;
    for (const deadline = Date.now() + 60_000; !healthy && Date.now() < deadline; ) {
      healthy = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.ok, () => false);
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    t.ok(healthy, `the service came up (${output.slice(-2000)})`);
    const started = Date.now();
    child.kill('SIGTERM');
    let deadline: NodeJS.Timeout | undefined;
    const exit = await Promise.race([once(child, 'exit'), new Promise((resolve) => (deadline = setTimeout(resolve, 25_000, ['timeout'])))]);
    clearTimeout(deadline); // else this file waits the 25 s out after a passing test
    t.same(exit, [0, null], `clean exit (${output.slice(-2000)})`);
    t.ok(Date.now() - started < 25_000, 'before its own shutdown deadline');
    t.notMatch(output, /Cannot use a pool after calling end/, 'no worker came up on a closed context');
  });
}
