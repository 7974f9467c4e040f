import { createHash } from 'node:crypto';
import t from 'tap';
import { createServer } from '../../../src/api/server.js';
import { closeContext, createContext, openContext } from '../../../src/context.js';
import { MODULES } from '../../../src/installed-modules.js';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { freshMinute } from '../../helpers/rate-window.js';

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

async function createKey(app: TestApp, owner: Owner, scopes: string[], name = 'Integration') {
  const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name, scopes }, ...admin(owner) });
  if (created.status !== 201) throw new Error(`key not created: ${created.status} ${created.raw}`);
  return created.body.data as { apiKey: { id: string; prefix: string; scopes: string[] }; secret: string };
}

const withKey = (app: TestApp, secret: string, options: { method?: string; url: string; payload?: unknown; headers?: Record<string, string> }) =>
  app.request({ ...options, headers: { authorization: `Bearer ${secret}`, ...options.headers } });

t.test('an API key acts only in its own store, only within its scopes, never on people-only routes', async (t) => {
  const app = await buildApp(t, { env: { RATE_LIMIT_API_KEY: '40' } });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const otherProduct = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Theirs', variants: [{ price: 100 }] }, ...admin(other) });
  t.equal(otherProduct.status, 201);

  const { apiKey, secret } = await createKey(app, owner, ['read_orders', 'read_products']);
  t.match(secret, /^swk_[A-Za-z0-9_-]{32,}$/);
  t.ok(secret.startsWith(apiKey.prefix));
  const stored = await app.ctx.db('apiKeys').where({ id: apiKey.id }).first();
  t.equal(stored.keyHash, createHash('sha256').update(secret).digest('hex'), 'stored as its SHA-256');
  t.notOk(JSON.stringify(stored).includes(secret), 'never the secret itself');
  const listed = await app.request({ url: '/admin/store/api-keys', ...admin(owner) });
  t.equal(listed.status, 200);
  t.same(listed.body.data.apiKeys.map((k: { id: string }) => k.id), [apiKey.id]);
  t.notOk(listed.raw.includes(secret), 'the list never shows the secret');

  const orders = await withKey(app, secret, { url: '/admin/orders' });
  t.equal(orders.status, 200, 'read_orders reads orders without x-store-id');
  t.equal((await withKey(app, secret, { url: '/admin/orders', headers: { 'x-store-id': owner.store.id } })).status, 200, 'its own store id is fine');

  const write = await withKey(app, secret, { method: 'POST', url: '/admin/products', payload: { title: 'Nope', variants: [{ price: 1 }] } });
  t.equal(write.status, 403);
  t.equal(write.body.error.code, 'insufficient_scope');
  t.same(write.body.error.details, [{ path: 'scopes', message: 'requires write_products' }]);
  t.equal(await app.ctx.db('products').where({ storeId: owner.store.id }).count('* as n').first().then((r) => Number(r!.n)), 0, 'nothing written');

  const foreignHeader = await withKey(app, secret, { url: '/admin/orders', headers: { 'x-store-id': other.store.id } });
  t.equal(foreignHeader.status, 403, 'an x-store-id naming another store is refused');
  t.equal((await withKey(app, secret, { url: '/admin/orders', headers: { 'x-store-id': 'not-a-uuid' } })).status, 403);
  const foreignProduct = await withKey(app, secret, { url: `/admin/products/${otherProduct.body.data.product.id}` });
  t.equal(foreignProduct.status, 404, "another store's product is not found");

  const everything = await createKey(app, owner, ['read_products', 'write_products', 'read_orders', 'write_orders', 'read_customers', 'write_customers', 'marketing', 'read_jobs']);
  for (const [method, url] of [
    ['GET', '/admin/store/team'],
    ['GET', '/admin/store/api-keys'],
    ['POST', '/admin/store/api-keys'],
    ['GET', '/admin/store/payments'],
    ['GET', '/admin/store/storefront-tokens'],
    ['PATCH', '/admin/store']
  ] as const) {
    const response = await withKey(app, everything.secret, { method, url, payload: method === 'GET' ? undefined : {} });
    t.equal(response.status, 403, `${method} ${url} is refused to keys`);
    t.equal(response.body.error.code, 'forbidden');
  }
  const made = await withKey(app, everything.secret, { method: 'POST', url: '/admin/products', payload: { title: 'By key', variants: [{ price: 5 }] } });
  t.equal(made.status, 201, 'write_products writes products');

  t.equal((await withKey(app, `swk_${'x'.repeat(43)}`, { url: '/admin/orders' })).status, 401, 'an unknown key');
  t.equal((await app.request({ url: '/admin/orders', storeId: owner.store.id })).status, 401, 'no credentials at all');
  t.equal((await app.request({ url: '/admin/orders', ...admin(owner) })).status, 200, 'people keep signing in with their JWT');

  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'x', scopes: ['read_orders'] }, token: staff.accessToken, storeId: owner.store.id })).status, 403, 'staff cannot create keys');
  const bad = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'x', scopes: ['admin'] }, ...admin(owner) });
  t.equal(bad.status, 422);
  t.equal((await app.request({ method: 'DELETE', url: `/admin/store/api-keys/${apiKey.id}`, ...admin(other) })).status, 404, "another store's key");

  let lastUsedAt = null;
  for (let i = 0; i < 50 && !lastUsedAt; i++) {
    lastUsedAt = (await app.ctx.db('apiKeys').where({ id: apiKey.id }).first('lastUsedAt')).lastUsedAt;
    if (!lastUsedAt) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.ok(lastUsedAt, 'lastUsedAt is recorded');
});

t.test('an API key is rate-limited on its own', async (t) => {
  const app = await buildApp(t, { env: { RATE_LIMIT_API_KEY: '10' } });
  const owner = await signupOwner(app);
  const busy = await createKey(app, owner, ['read_orders']);
  const calm = await createKey(app, owner, ['read_orders']);
  await freshMinute();
  const statuses = await Promise.all(Array.from({ length: 15 }, () => withKey(app, busy.secret, { url: '/admin/orders' }).then((r) => r.status)));
  t.equal(statuses.filter((s) => s === 200).length, 10);
  t.equal(statuses.filter((s) => s === 429).length, 5);
  t.equal((await withKey(app, calm.secret, { url: '/admin/orders' })).status, 200, 'another key is not slowed');
  t.equal((await app.request({ url: '/admin/orders', ...admin(owner) })).status, 200, 'nor are people');
});

t.test('a revoked key is refused at once by every process', async (t) => {
  // A long cache TTL: only the cross-process invalidation can make the second process forget the key.
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '600000' } });
  const second = createContext(app.ctx.config, { modules: MODULES });
  await openContext(second);
  const secondServer = await createServer(second, { port: 0, host: '127.0.0.1' });
  await secondServer.initialize();
  t.teardown(async () => {
    await secondServer.stop();
    await closeContext(second);
  });
  const owner = await signupOwner(app);
  const { apiKey, secret } = await createKey(app, owner, ['read_orders']);
  const viaSecond = async () => (await secondServer.inject({ url: '/api/v1/admin/orders', headers: { authorization: `Bearer ${secret}` } })).statusCode;
  t.equal(await viaSecond(), 200, 'the other process has the key cached');
  t.equal((await withKey(app, secret, { url: '/admin/orders' })).status, 200);

  const revoked = await app.request({ method: 'DELETE', url: `/admin/store/api-keys/${apiKey.id}`, ...admin(owner) });
  t.equal(revoked.status, 200);
  t.ok(revoked.body.data.apiKey.revokedAt);
  t.equal((await withKey(app, secret, { url: '/admin/orders' })).status, 401, 'refused by the revoking process');
  const started = Date.now();
  let status = await viaSecond();
  while (status === 200 && Date.now() - started < 2_000) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    status = await viaSecond();
  }
  t.equal(status, 401, `refused by the other process (after ${Date.now() - started} ms)`);
});

t.test('the OpenAPI document declares the key scheme and the scope of every admin operation', async (t) => {
  const app = await buildApp(t);
  const doc = (await app.request({ url: '/openapi.json' })).body;
  t.ok(doc.components.securitySchemes.adminApiKey);
  t.equal(doc.paths['/api/v1/admin/orders']?.get?.['x-api-key-scope'] ?? doc.paths['/admin/orders']?.get?.['x-api-key-scope'], 'read_orders');
  let adminOperations = 0;
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
    if (!path.includes('/admin/')) continue;
    for (const operation of Object.values(operations)) {
      adminOperations += 1;
      t.ok('x-api-key-scope' in operation, `${path} says which scope a key needs`);
      const keyAllowed = (operation.security as object[]).some((s) => 'adminApiKey' in s);
      t.equal(keyAllowed, operation['x-api-key-scope'] !== null, `${path}: the security list matches the scope`);
    }
  }
  t.ok(adminOperations > 40);
});
