import t from 'tap';
import { createDb } from '../../../src/db/knex.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { databaseUrl } from '../../helpers/databases.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// Several apps, storms and outages in one file: more than the default 120 s on a busy machine.
t.setTimeout(300_000);

t.test('NUL bytes anywhere in params, query or body answer 422, never 500', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, { title: 'Plain', status: 'active', variants: [{ price: 100 }] });
  const cases = [
    { method: 'POST', url: '/admin/products', payload: { title: 'Bad\u0000title' } },
    { method: 'PATCH', url: `/admin/products/${product.id}`, payload: { tags: ['ok', 'n\u0000l'] } },
    { method: 'GET', url: '/admin/products?q=sw%00ea' },
    { method: 'GET', url: '/admin/customers?q=%00' },
    { method: 'GET', url: '/admin/discounts?q=a%00' },
    { method: 'POST', url: '/admin/discounts', payload: { code: 'A', type: 'free_shipping', startsAt: null, minimumOrderAmount: null, isActive: true, value: null, usageLimit: null, endsAt: null, 'x\u0000': 1 } },
    { method: 'POST', url: '/admin/collections', payload: { title: 'C\u0000' } }
  ];
  for (const c of cases) {
    const response = await app.request({ ...c, ...admin(owner) });
    t.equal(response.status, 422, `${c.method} ${c.url}: ${response.raw}`);
    t.equal(response.body.error?.code, 'validation_failed');
  }
  const storefront = await app.request({ url: '/storefront/products?q=x%00y', storefrontToken: owner.storefrontToken });
  t.equal(storefront.status, 422, storefront.raw);
  const bySlug = await app.request({ url: '/storefront/products/a%00b', storefrontToken: owner.storefrontToken });
  t.equal(bySlug.status, 422, bySlug.raw);
  const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: 'pass\u0000word' } });
  t.equal(login.status, 422, login.raw);
  const detail = (await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'x', description: 'a\u0000' }, ...admin(owner) })).body.error.details;
  t.same(detail, [{ path: 'description', message: 'must not contain NUL characters (\\u0000)' }], 'the detail names the field');
});

t.test('money and quantities stay within what their columns hold', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const price = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Huge', variants: [{ price: 2147483648 }] }, ...admin(owner) });
  t.equal(price.status, 422, price.raw);
  t.equal(price.body.error.details[0].path, 'variants.0.price');
  const minPrice = await app.request({ url: '/storefront/products?minPrice=10000000000', storefrontToken: owner.storefrontToken });
  t.equal(minPrice.status, 422, minPrice.raw);
  const maxPrice = await app.request({ url: '/storefront/products?maxPrice=2147483648&sort=price_asc', storefrontToken: owner.storefrontToken });
  t.equal(maxPrice.status, 422, maxPrice.raw);
  for (const payload of [
    { code: 'BIG', type: 'fixed_amount', value: 1e10 },
    { code: 'BIG3', type: 'percentage', value: 10, minimumOrderAmount: 1e10 }
  ]) {
    const discount = await app.request({ method: 'POST', url: '/admin/discounts', payload, ...admin(owner) });
    t.equal(discount.status, 422, `${payload.code}: ${discount.raw}`);
  }
  const ok = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'MAX', type: 'fixed_amount', value: 2147483647 }, ...admin(owner) });
  t.equal(ok.status, 201, 'the largest amount is accepted');

  const product = await createProduct(app, owner, { title: 'Stocked', variants: [{ price: 2147483647, inventoryPolicy: 'continue' }] });
  const url = `/admin/products/${product.id}/variants/${product.variants[0].id}/inventory`;
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await app.request({ method: 'POST', url, payload: { delta: 1e9 }, ...admin(owner) })).status);
  t.same(statuses, [200, 409, 409, 409], 'up to 1e9 in stock; more is a conflict, never an overflow');
  const down: number[] = [];
  for (let i = 0; i < 4; i++) down.push((await app.request({ method: 'POST', url, payload: { delta: -1e9 }, ...admin(owner) })).status);
  t.same(down, [200, 200, 409, 409], 'a continue variant may go down to -1e9, no further');
  const concurrent = await Promise.all(Array.from({ length: 6 }, () => app.request({ method: 'POST', url, payload: { delta: 1e9 }, ...admin(owner) })));
  t.ok(concurrent.every((r) => r.status === 200 || r.status === 409), 'concurrent deltas never 500');
  const row = await app.ctx.db('productVariants').where({ id: product.variants[0].id }).first();
  t.ok(Math.abs(row.inventoryQuantity) <= 1e9);
});

t.test('crafted cursors answer 422 on every list', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await createProduct(app, owner, { title: 'Item', status: 'active', variants: [{ price: 100 }] });
  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Summer', isPublished: true }, ...admin(owner) });
  t.equal(collection.status, 201);
  const slug = collection.body.data.collection.slug;
  const crafted = [
    [{}, []],
    ['not a date', '00000000-0000-0000-0000-000000000000'],
    ['2026-01-01T00:00:00.000Z', 'not-a-uuid'],
    [12, 34],
    [null, null],
    ['2026-02-31T00:00:00.000Z', '00000000-0000-0000-0000-000000000000'],
    ['newest', { a: 1 }, 'x'],
    ['price_asc', 'abc', '00000000-0000-0000-0000-000000000000'],
    ['price_asc', 1e20, '00000000-0000-0000-0000-000000000000'],
    ['title', 5, '00000000-0000-0000-0000-000000000000'],
    ['newest', '2026-01-01', '00000000-0000-0000-0000-000000000000'],
    [1.5, '00000000-0000-0000-0000-000000000000'],
    ['x', 'y', 'z', 'w']
  ];
  const admins = ['/admin/products', '/admin/collections', '/admin/customers', '/admin/discounts', '/admin/jobs'];
  const storefronts = [
    '/storefront/products',
    '/storefront/products?sort=price_asc',
    '/storefront/products?sort=price_desc',
    '/storefront/products?sort=title',
    '/storefront/products?q=item',
    '/storefront/collections',
    `/storefront/collections/${slug}`
  ];
  for (const value of crafted) {
    const cursor = cursorOf(value);
    for (const list of admins) {
      const response = await app.request({ url: `${list}?cursor=${cursor}`, ...admin(owner) });
      t.equal(response.status, 422, `${list} ${JSON.stringify(value)}: ${response.raw}`);
    }
    for (const list of storefronts) {
      const response = await app.request({ url: `${list}${list.includes('?') ? '&' : '?'}cursor=${cursor}`, storefrontToken: owner.storefrontToken });
      t.equal(response.status, 422, `${list} ${JSON.stringify(value)}: ${response.raw}`);
    }
  }
  // Real cursors still work.
  for (let i = 0; i < 2; i++) await createProduct(app, owner, { title: `More ${i}`, status: 'active', variants: [{ price: 200 + i }] });
  for (const sort of ['newest', 'price_asc', 'title']) {
    const first = await app.request({ url: `/storefront/products?limit=1&sort=${sort}`, storefrontToken: owner.storefrontToken });
    const next = await app.request({ url: `/storefront/products?limit=1&sort=${sort}&cursor=${first.body.meta.pagination.nextCursor}`, storefrontToken: owner.storefrontToken });
    t.equal(next.status, 200, `${sort} page 2`);
  }
  const page1 = await app.request({ url: '/admin/products?limit=1', ...admin(owner) });
  const page2 = await app.request({ url: `/admin/products?limit=1&cursor=${page1.body.meta.pagination.nextCursor}`, ...admin(owner) });
  t.equal(page2.status, 200);
  t.not(page2.body.data.products[0].id, page1.body.data.products[0].id);
});

t.test('switching a variant with negative stock to deny is a 409 that says why', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, { title: 'Backorder', variants: [{ price: 100, inventoryPolicy: 'continue' }] });
  const variant = product.variants[0];
  const taken = await app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${variant.id}/inventory`, payload: { delta: -3 }, ...admin(owner) });
  t.equal(taken.status, 200);
  const deny = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { variants: [{ id: variant.id, inventoryPolicy: 'deny' }] }, ...admin(owner) });
  t.equal(deny.status, 409, deny.raw);
  t.equal(deny.body.error.code, 'insufficient_inventory');
  t.match(deny.body.error.message, /negative stock \(-3\)/);
  t.equal(deny.body.error.details[0].path, 'variants.0.inventoryPolicy');
  const both = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { variants: [{ id: variant.id, inventoryPolicy: 'deny', inventoryQuantity: 0 }] }, ...admin(owner) });
  t.equal(both.status, 200, 'with the stock raised in the same change it is accepted');
});

t.test('the envelope maps PostgreSQL data and constraint errors to 4xx as a net', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const db = app.ctx.db;
  // Routes that let the database find the problem stand in for a check a service forgot.
  app.server.route([
    { method: 'GET', path: '/api/net/cast', options: { auth: false }, handler: async () => db.raw(`select 'abc'::integer`) },
    { method: 'GET', path: '/api/net/range', options: { auth: false }, handler: async () => db.raw(`select 2147483647::integer + 1`) },
    { method: 'GET', path: '/api/net/unique', options: { auth: false }, handler: async () => db('memberships').insert({ storeId: owner.store.id, userId: owner.user.id, role: 'owner' }) },
    { method: 'GET', path: '/api/net/check', options: { auth: false }, handler: async () => db('memberships').where({ storeId: owner.store.id }).update({ role: 'king' }) },
    { method: 'GET', path: '/api/net/bug', options: { auth: false }, handler: async () => db.raw(`select * from no_such_table`) }
  ]);
  const expect = { cast: [422, 'validation_failed'], range: [422, 'validation_failed'], unique: [409, 'conflict'], check: [409, 'conflict'], bug: [500, 'internal_error'] } as const;
  for (const [name, [status, code]] of Object.entries(expect)) {
    const response = await app.request({ url: `/api/net/${name}` });
    t.equal(response.status, status, `${name}: ${response.raw}`);
    t.equal(response.body.error.code, code);
    t.notMatch(response.raw, /select|integer|memberships|no_such_table/i, 'no SQL leaks');
  }
});

t.test('a stored secret the ENCRYPTION_KEY cannot decrypt answers 409 secret_unreadable', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'] });
  const owner = await signupOwner(app);
  const patch = await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host: '127.0.0.1', port: smtp.port, user: 'u', password: 'p' } } }, ...admin(owner) });
  t.equal(patch.status, 200, patch.raw);
  app.ctx.config.encryptionKey = 'a-different-key-than-the-one-that-sealed-it';
  for (const request of [
    { url: '/admin/store/email/verify' },
    { method: 'POST', url: '/admin/store/email/test', payload: { toEmail: 'a@example.com' } }
  ]) {
    const response = await app.request({ ...request, ...admin(owner) });
    t.equal(response.status, 409, response.raw);
    t.equal(response.body.error.code, 'secret_unreadable');
    t.match(response.body.error.message, /SMTP password/);
    t.equal(response.body.error.details[0].path, 'email.smtp.password');
  }
  const reentered = await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host: '127.0.0.1', port: smtp.port, user: 'u', password: 'p' } } }, ...admin(owner) });
  t.equal(reentered.status, 200);
  const verify = await app.request({ url: '/admin/store/email/verify', ...admin(owner) });
  t.equal(verify.status, 200, 're-entering the password fixes it');
});

t.test('PostgreSQL down or missing: admin routes answer 503, not 401', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const original = app.ctx.db;
  t.teardown(() => {
    app.ctx.db = original;
  });
  const down = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1 });
  const missing = createDb(databaseUrl('sw_no_such_database_here'), { max: 1 });
  t.teardown(async () => {
    await down.destroy();
    await missing.destroy();
  });
  for (const [label, db] of [['down', down], ['missing', missing]] as const) {
    app.ctx.db = db;
    for (const url of ['/admin/products', '/auth/me', '/admin/store']) {
      const response = await app.request({ url, ...admin(owner) });
      t.equal(response.status, 503, `${label} ${url}: ${response.raw}`);
      t.equal(response.body.error.code, 'service_unavailable');
      t.notOk(response.headers['www-authenticate'], 'no WWW-Authenticate: clients must not log out');
      t.notMatch(response.raw, /ECONNREFUSED|sw_no_such/);
    }
    const storefront = await app.request({ url: '/storefront/products', storefrontToken: `${owner.storefrontToken}x` });
    t.equal(storefront.status, 503, `${label} storefront: ${storefront.raw}`);
  }
  app.ctx.db = original;
  const back = await app.request({ url: '/admin/products', ...admin(owner) });
  t.equal(back.status, 200, 'served again once the database is back');
});
