import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createServer } from '../../../src/api/server.js';
import { loadConfig } from '../../../src/config.js';
import { closeContext, createContext, openContext } from '../../../src/context.js';
import { MODULES } from '../../../src/installed-modules.js';
import { createLogger } from '../../../src/logger.js';
import { LocalCache } from '../../../src/platform/cache/local-cache.js';
import { buildApp, signupOwner, unique } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';

// Several apps, storms and outages in one file: more than the default 120 s on a busy machine.
t.setTimeout(300_000);

t.test('rotating a revoked storefront token is 409 token_revoked and it stays revoked', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'Shop' }, ...admin(owner) });
  const { token, secret } = created.body.data;
  const revoked = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${token.id}/revoke`, ...admin(owner) });
  t.ok(revoked.body.data.token.revokedAt);
  const rotate = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${token.id}/rotate`, ...admin(owner) });
  t.equal(rotate.status, 409, rotate.raw);
  t.equal(rotate.body.error.code, 'token_revoked');
  const list = await app.request({ url: '/admin/store/storefront-tokens', ...admin(owner) });
  const listed = list.body.data.tokens.find((item: { id: string }) => item.id === token.id);
  t.ok(listed.revokedAt, 'still revoked');
  t.equal(listed.prefix, token.prefix, 'the secret was not replaced');
  t.equal((await app.request({ url: '/storefront/store', storefrontToken: secret })).status, 401, 'the old secret stays refused');
  // Rotating a live token still works.
  const live = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'Live' }, ...admin(owner) });
  const rotated = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${live.body.data.token.id}/rotate`, ...admin(owner) });
  t.equal(rotated.status, 200);
  t.equal((await app.request({ url: '/storefront/store', storefrontToken: rotated.body.data.secret })).status, 200);
});

/** These caches are never started: the generation logic is in-process, no pub/sub is needed. */
const quietBus = { start: () => undefined, publish: async () => undefined, close: async () => undefined };

t.test('a value read before an invalidation is never cached after it (generation counter)', async (t) => {
  const cache = new LocalCache(quietBus, createLogger('silent'), 60_000);
  const generation = cache.generation();
  await cache.invalidate('sft:abc');
  cache.set('sft:abc', { storeId: 's', tokenId: 't' }, generation);
  t.equal(cache.get('sft:abc'), undefined, 'the stale read is dropped');
  cache.set('sft:abc', { storeId: 's', tokenId: 't' }, cache.generation());
  t.ok(cache.get('sft:abc'), 'a fresh read is cached');

  // Invalidations of other keys (the catalog's, many a second during checkouts) do not refuse it.
  const before = cache.generation();
  await cache.invalidate('catalog:1', 'catalog:2');
  cache.set('store:1', { name: 'S' }, before);
  t.ok(cache.get('store:1'), 'a read overlapping other keys\' invalidations is cached');
  await cache.close();

  // The memory of invalidated keys is bounded; a read older than what was forgotten is refused.
  const small = new LocalCache(quietBus, createLogger('silent'), 60_000, 3);
  const old = small.generation();
  await small.invalidate('k1', 'k2', 'k3', 'k4', 'k5');
  small.set('k9', 'value', old);
  t.equal(small.get('k9'), undefined, 'once invalidations were forgotten, an older read may have missed one: refused');
  small.set('k9', 'value', small.generation());
  t.equal(small.get('k9'), 'value');
  await small.close();

  // Through HTTP: requests in flight while the token is revoked; afterwards it is refused at once.
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'Race' }, ...admin(owner) });
  const { token, secret } = created.body.data;
  for (let round = 0; round < 5; round++) {
    const fresh = round === 0 ? { id: token.id, secret } : (await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: `Race ${round}` }, ...admin(owner) })).body.data;
    const id = fresh.token?.id ?? fresh.id;
    const reads = Array.from({ length: 40 }, () => app.request({ url: '/storefront/store', storefrontToken: fresh.secret }));
    await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${id}/revoke`, ...admin(owner) });
    await Promise.all(reads);
    t.equal((await app.request({ url: '/storefront/store', storefrontToken: fresh.secret })).status, 401, `round ${round}: refused once the revoke answered`);
  }
});

t.test('revocation holds in another process within the cache TTL even when its invalidation message is lost', async (t) => {
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '400' } });
  const owner = await signupOwner(app);
  // A second "process" on the same database whose invalidation channel differs: every message is lost to it.
  const other = createContext({ ...app.ctx.config, redisPrefix: `${app.ctx.config.redisPrefix}:other` }, { modules: MODULES });
  await openContext(other);
  const otherServer = await createServer(other, { port: 0, host: '127.0.0.1' });
  await otherServer.initialize();
  t.teardown(async () => {
    await otherServer.stop();
    await closeContext(other);
  });
  const read = async () => (await otherServer.inject({ url: '/api/v1/storefront/store', headers: { 'x-storefront-token': owner.storefrontToken } })).statusCode;
  t.equal(await read(), 200, 'cached in the other process');
  const tokens = await app.request({ url: '/admin/store/storefront-tokens', ...admin(owner) });
  const revokedAt = Date.now();
  await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${tokens.body.data.tokens[0].id}/revoke`, ...admin(owner) });
  t.equal((await app.request({ url: '/storefront/store', storefrontToken: owner.storefrontToken })).status, 401, 'refused at once where it was revoked');
  let status = await read();
  while (status === 200 && Date.now() - revokedAt < 5_000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await read();
  }
  t.equal(status, 401, 'refused by the other process too');
  t.ok(Date.now() - revokedAt < 400 + 300, `within the TTL bound (${Date.now() - revokedAt} ms)`);
});

t.test('TRUST_PROXY picks the client address from X-Forwarded-For for consent records and rate limits', async (t) => {
  const trusting = await buildApp(t, { env: { TRUST_PROXY: '1', RATE_LIMIT_AUTH_PER_IP: '3' } });
  const owner = await signupOwner(trusting);
  await trusting.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: false }, ...admin(owner) });
  const subscribe = await trusting.request({
    method: 'POST',
    url: '/storefront/newsletter/subscribe',
    payload: { email: 'proxied@example.com' },
    storefrontToken: owner.storefrontToken,
    headers: { 'x-forwarded-for': '10.9.9.9, 203.0.113.9' }
  });
  t.equal(subscribe.status, 200, subscribe.raw);
  const customer = await trusting.ctx.db('customers').where({ storeId: owner.store.id, email: 'proxied@example.com' }).first();
  t.equal(customer.emailMarketingIp, '203.0.113.9', 'the address the trusted proxy saw, not the forged one');
  const attempt = (ip: string) =>
    trusting.request({ method: 'POST', url: '/auth/login', payload: { email: `${unique('n')}@example.com`, password: 'whatever1' }, headers: { 'x-forwarded-for': ip } });
  // Fixed one-minute windows: a window may turn over once during the loop, hence up to 2 × 3 + 1 tries.
  const fromOne: number[] = [];
  while (fromOne.length < 7 && !fromOne.includes(429)) fromOne.push((await attempt('198.51.100.1')).status);
  t.ok(fromOne.includes(429) && fromOne.filter((s) => s === 401).length >= 3, `one client is limited after 3: ${fromOne.join(',')}`);
  t.equal((await attempt('198.51.100.2')).status, 401, 'another client behind the same proxy is not');

  const direct = await buildApp(t);
  const owner2 = await signupOwner(direct);
  await direct.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: false }, ...admin(owner2) });
  await direct.request({
    method: 'POST',
    url: '/storefront/newsletter/subscribe',
    payload: { email: 'direct@example.com' },
    storefrontToken: owner2.storefrontToken,
    headers: { 'x-forwarded-for': '203.0.113.77' }
  });
  const plain = await direct.ctx.db('customers').where({ storeId: owner2.store.id, email: 'direct@example.com' }).first();
  t.equal(plain.emailMarketingIp, '127.0.0.1', 'off by default: the header is ignored');
});

t.test('login lock-out is per email and address, with a higher per-email ceiling', async (t) => {
  const app = await buildApp(t, { env: { TRUST_PROXY: '1', RATE_LIMIT_AUTH_PER_EMAIL: '3', RATE_LIMIT_AUTH_PER_EMAIL_CEILING: '8' } });
  const owner = await signupOwner(app);
  const login = (password: string, ip: string) =>
    app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password }, headers: { 'x-forwarded-for': ip } });
  // Fixed one-minute windows: a window may turn over once during the loop, hence up to 2 × 3 + 1 tries.
  const guesses: number[] = [];
  while (guesses.length < 7 && !guesses.includes(429)) guesses.push((await login('wrong-password', '198.51.100.66')).status);
  t.ok(guesses.includes(429) && guesses.filter((s) => s === 401).length >= 3, `the guesser is limited after 3: ${guesses.join(',')}`);
  t.equal((await login(owner.password, '198.51.100.66')).status, 429, 'even with the right password, from that address');
  t.equal((await login(owner.password, '203.0.113.5')).status, 200, 'the owner elsewhere is not locked out');
  // Spread over many addresses the per-email ceiling still stops the guessing.
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await login('wrong-password', `192.0.2.${i + 1}`)).status);
  t.ok(statuses.includes(429), `ceiling reached: ${statuses.join(',')}`);
});

t.test('SMTP hosts resolving to internal addresses are refused, at save and at connect', async (t) => {
  const app = await buildApp(t, { env: { ALLOW_PRIVATE_SMTP_HOSTS: 'false' } });
  const owner = await signupOwner(app);
  for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '169.254.169.254', '192.168.0.10', '172.20.0.1', '::1', '0.0.0.0', '100.64.0.1', 'no-such-host.invalid']) {
    const response = await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host, port: 25 } } }, ...admin(owner) });
    t.equal(response.status, 422, `${host}: ${response.raw}`);
    t.equal(response.body.error.details?.[0]?.path, 'email.smtp.host');
  }
  const publicHost = await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host: '93.184.216.34', port: 25 } } }, ...admin(owner) });
  t.equal(publicHost.status, 200, 'a public address is accepted');
  // The name now points inside (as after a DNS change): refused again when connecting.
  await app.ctx.db('storeEmailSettings').where({ storeId: owner.store.id }).update({ smtpHost: 'localhost' });
  const verify = await app.request({ url: '/admin/store/email/verify', ...admin(owner) });
  t.equal(verify.status, 422, verify.raw);
  t.match(verify.body.error.details[0].message, /private, loopback or link-local/);
});

t.test('SMTP errors are logged without recipient addresses', async (t) => {
  const written: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
  try {
    createLogger('info').warn(
      { queue: 'email', err: { message: "Can't send mail - all recipients were rejected: 550 5.1.1 <victim.person@example.com>: Recipient address rejected" } },
      'job failed'
    );
  } finally {
    process.stdout.write = stdoutWrite;
  }
  const text = written.join('');
  t.notMatch(text, /victim\.person@example\.com/);
  t.match(text, /550 5\.1\.1 <\[email\]>: Recipient address rejected/, 'the reason stays');
});

t.test('Redis down at boot: the web process starts and serves; auth rate limits fall back to a per-process limiter', async (t) => {
  const name = `sw_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = await createTestDatabase(name);
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-test-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_PREFIX: `swt:${name}`,
    STORAGE_DIR: storageDir,
    PASSWORD_HASH_COST: '1024',
    RATE_LIMIT_AUTH_PER_EMAIL: '2'
  });
  const ctx = createContext(config, { modules: MODULES });
  const started = Date.now();
  await openContext(ctx);
  const server = await createServer(ctx, { port: 0, host: '127.0.0.1' });
  await server.start();
  t.teardown(async () => {
    await server.stop({ timeout: 1_000 });
    await closeContext(ctx);
    await dropTestDatabase(name);
    await rm(storageDir, { recursive: true, force: true });
  });
  t.ok(Date.now() - started < 10_000, `listening after ${Date.now() - started} ms`);
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.info.uri}/api/v1${url}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const health = await call('GET', '/health');
  t.equal(health.status, 503);
  t.equal(health.body.data.redis, 'disconnected');
  t.equal(health.body.data.queue, 'disconnected');
  const signup = await call('POST', '/auth/signup', {
    firstName: 'R', lastName: 'D', email: 'redis-down@example.com', password: 'correct horse battery', storeName: 'Down', storeSlug: `down-${randomBytes(3).toString('hex')}`
  });
  t.equal(signup.status, 201, JSON.stringify(signup.body));
  const products = await call('GET', '/storefront/products', undefined, { 'x-storefront-token': signup.body.data.storefrontToken });
  t.equal(products.status, 200, 'the storefront serves');
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await call('POST', '/auth/login', { email: 'redis-down@example.com', password: 'wrong-password' })).status);
  t.same(statuses, [401, 401, 429, 429], 'login attempts are still limited (not failing open)');
});
