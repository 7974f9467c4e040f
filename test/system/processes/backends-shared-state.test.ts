import t from 'tap';
import { reserveSendSlots } from '../../../src/services/marketing/send-rate.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { NO_REDIS_ENV, REDIS_ENV, redisConfigured } from '../../helpers/backends.js';
import { createProduct } from '../../helpers/catalog.js';
import { secondProcess } from '../../helpers/second-process.js';

/**
 * What two processes share through the backends, on each kind: PostgreSQL always (forced with
 * REDIS_URL='' and REDIS_CLUSTER_NODES=''), Redis (one server or a cluster) when one is configured. Two contexts on one database stand for two processes.
 */
const KINDS = [
  { kind: 'postgres', env: NO_REDIS_ENV, skip: false as const },
  { kind: 'redis', env: REDIS_ENV, skip: redisConfigured ? (false as const) : 'REDIS_URL is unset: the Redis adapters need a Redis' }
];

const admin = (owner: { accessToken: string; store: { id: string } }) => ({ token: owner.accessToken, storeId: owner.store.id });

for (const { kind, env, skip } of KINDS) {
  t.test(`${kind}: a login rate limit holds across two processes`, { skip }, async (t) => {
    const app = await buildApp(t, { env: { ...env, RATE_LIMIT_AUTH_PER_EMAIL: '3' } });
    t.equal(app.ctx.backends.kind, kind);
    const other = await secondProcess(t, app);
    const owner = await signupOwner(app);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const via = i % 2 === 0 ? app : other;
      statuses.push((await via.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: 'wrong password' } })).status);
    }
    t.same(statuses, [401, 401, 401, 429, 429, 429], `failures alternate between the processes: ${statuses.join(',')}`);
  });

  t.test(`${kind}: a storefront token revoked in one process is refused by the other at once`, { skip }, async (t) => {
    // A minute-long cache TTL: only the invalidation message can explain a quick refusal.
    const app = await buildApp(t, { env: { ...env, STOREFRONT_CACHE_TTL_MS: '60000' } });
    const other = await secondProcess(t, app);
    const owner = await signupOwner(app);
    const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'Shared' }, ...admin(owner) });
    const secret = created.body.data.secret as string;
    t.equal((await other.request({ url: '/storefront/store', storefrontToken: secret })).status, 200, 'cached in the other process');
    await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${created.body.data.token.id}/revoke`, ...admin(owner) });
    t.equal(await refusedWithin(other, secret, 3_000), true, 'the other process refuses it within 3 s of a 60 s TTL');
  });

  t.test(`${kind}: the catalog version behind ETags is shared and moves for both`, { skip }, async (t) => {
    const app = await buildApp(t, { env });
    const other = await secondProcess(t, app);
    const owner = await signupOwner(app);
    const product = await createProduct(app, owner, { title: 'Shared Shirt', status: 'active', variants: [{ price: 1000, inventoryQuantity: 1 }] });
    const sf = { storefrontToken: owner.storefrontToken };
    const first = await app.request({ url: '/storefront/products', ...sf });
    const etag = first.headers.etag as string;
    t.equal((await other.request({ url: '/storefront/products', ...sf, headers: { 'if-none-match': etag } })).status, 304, 'the other process revalidates the same tag');
    await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Shared Shirt II' }, ...admin(owner) });
    let status = 304;
    const started = Date.now();
    while (status === 304 && Date.now() - started < 3_000) {
      status = (await other.request({ url: '/storefront/products', ...sf, headers: { 'if-none-match': etag } })).status;
      if (status === 304) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.equal(status, 200, 'after a write in one process, the old tag stops matching in the other');
  });

  t.test(`${kind}: send slots reserved by two processes at once never overlap`, { skip }, async (t) => {
    const app = await buildApp(t, { env });
    const other = await secondProcess(t, app);
    const owner = await signupOwner(app);
    const rate = 200;
    const batches = await Promise.all(Array.from({ length: 8 }, (_v, i) => reserveSendSlots(i % 2 ? other.ctx : app.ctx, owner.store.id, 25, rate)));
    const times = batches.flat().sort((a, b) => a - b);
    t.equal(times.length, 200);
    const gaps = times.slice(1).map((time, i) => time - times[i]!);
    t.ok(Math.min(...gaps) >= 1000 / rate - 0.01, `every slot at least ${1000 / rate} ms after the previous one (smallest gap ${Math.min(...gaps).toFixed(3)} ms)`);
    const span = times[times.length - 1]! - times[0]!;
    t.ok(Math.abs(span - (199 * 1000) / rate) < 1, `200 slots span ${span.toFixed(1)} ms: the rate holds across both`);
  });

  t.test(`${kind}: a concurrency slot cap holds across two processes, and a lapsed claim frees itself`, { skip }, async (t) => {
    const app = await buildApp(t, { env });
    const other = await secondProcess(t, app);
    const key = 'webhook-inflight:test';
    const a = app.ctx.backends.slots;
    const b = other.ctx.backends.slots;
    t.same(
      [await a.take(key, 'd1', 2, 60_000), await b.take(key, 'd2', 2, 60_000), await a.take(key, 'd3', 2, 60_000), await b.take(key, 'd4', 2, 60_000)],
      [true, true, false, false],
      'two in flight, the third and fourth refused wherever they ask'
    );
    await b.release(key, 'd2');
    t.equal(await a.take(key, 'd3', 2, 60_000), true, 'a released slot is taken by the other process');
    const lone = 'webhook-inflight:lone';
    t.equal(await a.take(lone, 'e1', 1, 60_000), true);
    t.equal(await b.take(lone, 'e2', 1, 60_000), false, 'one slot, taken');
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(await b.take(lone, 'e2', 1, 200), true, 'a claim older than the claim time has lapsed');

    // 60 claims at once from both processes on a cap of 4: exactly 4 taken, and 4 rows/members held.
    const raced = 'webhook-inflight:race';
    const taken = await Promise.all(Array.from({ length: 60 }, (_v, i) => (i % 2 ? a : b).take(raced, `r${i}`, 4, 60_000)));
    t.equal(taken.filter(Boolean).length, 4, 'a cap of 4 holds under 60 concurrent claims from two processes');
    const holders = taken.flatMap((ok, i) => (ok ? [`r${i}`] : []));
    t.equal(await a.take(raced, holders[0]!, 4, 60_000), true, 'a holder renewing its claim keeps it at the cap');
    await Promise.all(holders.map((member) => b.release(raced, member)));
    t.equal(await a.take(raced, 'late', 4, 60_000), true, 'released, the slots are free again');
    // One member's claims under two keys (a delivery's endpoint and host) released together.
    const [endpoint, host] = ['webhook-inflight:both', 'webhook-host:both'];
    t.same([await a.take(endpoint, 'x', 1, 60_000), await a.take(host, 'x', 1, 60_000)], [true, true]);
    t.same([await b.take(endpoint, 'y', 1, 60_000), await b.take(host, 'y', 1, 60_000)], [false, false], 'both caps full');
    await a.releaseAll([endpoint, host], 'x');
    t.same([await b.take(endpoint, 'y', 1, 60_000), await b.take(host, 'y', 1, 60_000)], [true, true], 'both released at once');
  });
}

t.test('postgres: the invalidation listener comes back after its connection is killed', async (t) => {
  const app = await buildApp(t, { env: { ...NO_REDIS_ENV, STOREFRONT_CACHE_TTL_MS: '60000' } });
  const other = await secondProcess(t, app);
  const owner = await signupOwner(app);
  const killed = await app.ctx.db.raw(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'shopwright:invalidation'`
  );
  t.equal(killed.rows.length, 2, 'both processes listened, each on its own connection');
  // Wait for both listeners to be back (each re-LISTENs on a new connection).
  const started = Date.now();
  let listeners = 0;
  while (listeners < 2 && Date.now() - started < 5_000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rows = await app.ctx.db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'shopwright:invalidation'`);
    listeners = rows.rows[0].n;
  }
  t.equal(listeners, 2, 'both listeners reconnected');
  const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'After' }, ...admin(owner) });
  const secret = created.body.data.secret as string;
  t.equal((await other.request({ url: '/storefront/store', storefrontToken: secret })).status, 200);
  await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${created.body.data.token.id}/revoke`, ...admin(owner) });
  t.equal(await refusedWithin(other, secret, 3_000), true, 'invalidations reach the other process again');
});

async function refusedWithin(app: Pick<TestApp, 'request'>, secret: string, ms: number): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if ((await app.request({ url: '/storefront/store', storefrontToken: secret })).status === 401) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
