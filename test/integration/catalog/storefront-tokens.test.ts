import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('storefront tokens: list, create, rotate and revoke take effect at once', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const admin = { token: owner.accessToken, storeId: owner.store.id };
  const storefront = (token: string) => app.request({ url: '/storefront/store', storefrontToken: token });
  const viaBearer = (token: string) => app.request({ url: '/storefront/store', headers: { authorization: `Bearer ${token}` } });

  t.equal((await storefront(owner.storefrontToken)).status, 200);
  t.equal((await viaBearer(owner.storefrontToken)).body.data.store.slug, owner.store.slug, 'Bearer swsf_ works too');
  const missing = await app.request({ url: '/storefront/store' });
  t.equal(missing.status, 401);
  t.ok(missing.headers['www-authenticate']);
  t.equal((await storefront('swsf_' + 'x'.repeat(43))).status, 401);

  const list = await app.request({ url: '/admin/store/storefront-tokens', ...admin });
  t.equal(list.status, 200);
  t.equal(list.body.data.tokens.length, 1);
  const listed = list.body.data.tokens[0];
  t.same(Object.keys(listed).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt']);
  t.ok(owner.storefrontToken.startsWith(listed.prefix));
  t.notOk(JSON.stringify(list.body).includes(owner.storefrontToken), 'never the secret');

  const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'Mobile app' }, ...admin });
  t.equal(created.status, 201);
  t.match(created.body.data.secret, /^swsf_[A-Za-z0-9_-]{32,}$/);
  t.equal(created.body.data.token.name, 'Mobile app');
  const tokenId = created.body.data.token.id;
  const firstSecret = created.body.data.secret;
  t.equal((await storefront(firstSecret)).status, 200);

  const rotated = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${tokenId}/rotate`, ...admin });
  t.equal(rotated.status, 200);
  t.not(rotated.body.data.secret, firstSecret);
  t.equal((await storefront(firstSecret)).status, 401, 'the old secret stops working at once');
  t.equal((await storefront(rotated.body.data.secret)).status, 200);

  const revoked = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${tokenId}/revoke`, ...admin });
  t.equal(revoked.status, 200);
  t.ok(revoked.body.data.token.revokedAt);
  t.equal((await storefront(rotated.body.data.secret)).status, 401, 'revoked at once');
  t.equal((await storefront(owner.storefrontToken)).status, 200, 'other tokens unaffected');

  const foreign = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${tokenId}/revoke`, token: other.accessToken, storeId: other.store.id });
  t.equal(foreign.status, 404, "another store's token id is not found");

  const empty = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: '   ' }, ...admin });
  t.equal(empty.status, 422);
});

t.test('storefront token records lastUsedAt and selects its own store', async (t) => {
  const a = await signupOwner(app);
  const b = await signupOwner(app);
  t.equal((await app.request({ url: '/storefront/store', storefrontToken: b.storefrontToken })).body.data.store.slug, b.store.slug);
  await app.request({ url: '/storefront/store', storefrontToken: a.storefrontToken });
  let row;
  for (let i = 0; i < 50; i++) {
    row = await app.ctx.db('storefrontTokens').where({ storeId: a.store.id }).first();
    if (row.lastUsedAt) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.ok(row.lastUsedAt, 'lastUsedAt recorded');
});
