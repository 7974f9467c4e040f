import dns, { type LookupAddress } from 'node:dns';
import dnsPromises from 'node:dns/promises';
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import t from 'tap';
import { buildApp, signupOwner, type Owner, type Teardownable, type TestApp } from '../../helpers/app.js';
import { NO_REDIS_ENV, REDIS_ENV, redisConfigured } from '../../helpers/backends.js';
import { secondProcess, type SecondProcess } from '../../helpers/second-process.js';
import { waitFor } from '../../helpers/webhook-receiver.js';

// Dozens of deliveries held 150 ms each behind a cap of 3, on two backends: past the default 120 s on a busy machine.
t.setTimeout(300_000);

const KINDS = [
  { kind: 'postgres', env: NO_REDIS_ENV, skip: false as const },
  { kind: 'redis', env: REDIS_ENV, skip: redisConfigured ? (false as const) : 'REDIS_URL is unset: the Redis slot store needs a Redis' }
];

const HOST_CAP = 3;
const PINGS_PER_ENDPOINT = 6;

/** A receiver on 127.0.0.1 that holds every request 150 ms and records the most it ever had in flight. */
async function countingReceiver(t: Teardownable) {
  const state = { inFlight: 0, maxInFlight: 0, received: 0 };
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    request.resume();
    request.on('end', () => {
      setTimeout(() => {
        state.inFlight -= 1;
        state.received += 1;
        response.writeHead(200).end('ok');
      }, 150);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, state };
}

/**
 * Names under .fanout.test resolve to 127.0.0.1 (as a store's own wildcard DNS could point any
 * number of names at one third party). The guards resolve through node:dns's lookup (callback or
 * promise); the patch is made visible to their ESM imports and undone after the test.
 */
function fakeDns(t: Teardownable) {
  const fake = (hostname: string) => hostname.endsWith('.fanout.test');
  const original = dns.lookup;
  const originalPromise = dnsPromises.lookup;
  const patched = (hostname: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (error: Error | null, address: string | LookupAddress[], family?: number) => void;
    if (!fake(hostname)) return (original as (...args: unknown[]) => void)(hostname, options, callback);
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    process.nextTick(() => (all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));
  };
  const patchedPromise = async (hostname: string, options?: { all?: boolean }) => {
    if (!fake(hostname)) return (originalPromise as (...args: unknown[]) => Promise<unknown>)(hostname, options);
    return options?.all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
  };
  (dns as { lookup: unknown }).lookup = patched;
  (dnsPromises as { lookup: unknown }).lookup = patchedPromise;
  syncBuiltinESMExports();
  t.teardown(() => {
    (dns as { lookup: unknown }).lookup = original;
    (dnsPromises as { lookup: unknown }).lookup = originalPromise;
    syncBuiltinESMExports();
  });
}

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

for (const { kind, env, skip } of KINDS) {
  t.test(`${kind}: deliveries from many stores and two workers never exceed the per-host cap at one host`, { skip }, async (t) => {
    fakeDns(t);
    const settings = { ...env, ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_HOST_CONCURRENCY: String(HOST_CAP), WEBHOOK_RETRY_BASE_MS: '60000', OUTBOX_POLL_MS: '100' };
    const app: TestApp = await buildApp(t, { env: settings });
    t.equal(app.ctx.backends.kind, kind);
    const receiver = await countingReceiver(t);
    // Stores A and B call the receiver by its address; store C by two names that resolve to it.
    const urls = [
      [`http://127.0.0.1:${receiver.port}/a1`, `http://127.0.0.1:${receiver.port}/a2`],
      [`http://127.0.0.1:${receiver.port}/b1`, `http://127.0.0.1:${receiver.port}/b2`],
      [`http://one.fanout.test:${receiver.port}/c1`, `http://two.fanout.test:${receiver.port}/c2`]
    ];
    const endpoints: Array<{ owner: Owner; id: string }> = [];
    for (const storeUrls of urls) {
      const owner = await signupOwner(app);
      for (const url of storeUrls) {
        const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics: ['order.created'] }, ...admin(owner) });
        t.equal(created.status, 201, created.raw);
        endpoints.push({ owner, id: created.body.data.webhook.id });
      }
    }
    // Six endpoints with 4 attempts each in flight would be 24 at once without the host cap.
    for (let round = 0; round < PINGS_PER_ENDPOINT; round++) {
      await Promise.all(endpoints.map(({ owner, id }) => app.request({ method: 'POST', url: `/admin/store/webhooks/${id}/ping`, ...admin(owner) })));
    }
    const total = endpoints.length * PINGS_PER_ENDPOINT;
    // Two worker processes on the same backends take the jobs.
    const workers: Array<TestApp | SecondProcess> = [app, await secondProcess(t, app, { workers: ['webhooks'] })];
    await (workers[0] as TestApp).startWorkers(['webhooks']);

    await waitFor('every delivery to succeed', async () => {
      const [row] = await app.ctx.db('webhookDeliveries').where({ status: 'succeeded' }).count({ n: '*' });
      return Number(row!.n) === total;
    }, 120_000);
    t.equal(receiver.state.received, total, `all ${total} deliveries arrived`);
    t.ok(receiver.state.maxInFlight <= HOST_CAP, `at most ${HOST_CAP} in flight at the host (saw ${receiver.state.maxInFlight})`);
    t.ok(receiver.state.maxInFlight >= 2, `deliveries did overlap (saw ${receiver.state.maxInFlight}), so the cap is what held them`);
    const rows = await app.ctx.db('webhookDeliveries').select('status', 'attempts');
    t.ok(rows.every((row: { status: string; attempts: number }) => row.status === 'succeeded' && row.attempts === 1), 'a delivery held back by the cap waited: never failed, never counted as an attempt');
  });
}
