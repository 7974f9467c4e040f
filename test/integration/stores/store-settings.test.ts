import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { MODULES } from '../../../src/installed-modules.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
// The round-trip test (another send-rate cap) and the one counting every statement the app's pool
// runs build their own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('PATCH /admin/store: every AdminUpdateStoreRequest field round-trips through GET', async (t) => {
  const app = await buildApp(t, { workers: false, env: { MARKETING_SEND_RATE_CAP: '20' } });
  const owner = await signupOwner(app);
  const payload = {
    name: '  Renamed Store ',
    contactEmail: 'Hello@Shop.Example',
    timezone: 'Europe/Paris',
    currency: 'eur',
    shippingMethods: [
      { name: 'Standard', price: 500, freeOverAmount: 5000, countries: ['fr', 'DE'] },
      { name: 'Pickup', price: 0 }
    ],
    manualPaymentsEnabled: false,
    manualPaymentDays: 21,
    newsletterDoubleOptIn: true,
    marketingSendRate: 10,
    storefrontUrl: 'https://shop.example.com/',
    email: { fromName: 'Renamed', fromEmail: 'shop@shop.example', replyTo: 'help@shop.example', smtp: { host: 'smtp.example.com', port: 587, secure: false, user: 'u', password: 'pw-secret' } }
  };
  const patched = await app.request({ method: 'PATCH', url: '/admin/store', payload, ...admin(owner) });
  t.equal(patched.status, 200, patched.raw);
  const store = patched.body.data.store;
  t.match(store, {
    name: 'Renamed Store',
    contactEmail: 'hello@shop.example',
    timezone: 'Europe/Paris',
    currency: 'EUR',
    manualPaymentsEnabled: false,
    manualPaymentDays: 21,
    newsletterDoubleOptIn: true,
    marketingSendRate: 10,
    storefrontUrl: 'https://shop.example.com'
  });
  t.match(store.shippingMethods, [{ name: 'Standard', price: 500, freeOverAmount: 5000, countries: ['FR', 'DE'] }, { name: 'Pickup', price: 0, freeOverAmount: null, countries: null }]);
  t.ok(store.shippingMethods[0].id, 'shipping methods get ids');
  t.same(store.email.smtp, { host: 'smtp.example.com', port: 587, secure: false, user: 'u', passwordSet: true });
  t.notOk(patched.raw.includes('pw-secret'));

  const dashboard = await app.request({ url: '/admin/store', ...admin(owner) });
  t.same(dashboard.body.data.store, { ...store, updatedAt: dashboard.body.data.store.updatedAt });

  // Keeping a method's id keeps the method; the cap applies to the send rate.
  const kept = await app.request({ method: 'PATCH', url: '/admin/store', payload: { shippingMethods: [{ ...store.shippingMethods[0] }], marketingSendRate: 500 }, ...admin(owner) });
  t.equal(kept.status, 200, kept.raw);
  t.equal(kept.body.data.store.shippingMethods[0].id, store.shippingMethods[0].id);
  t.equal(kept.body.data.store.marketingSendRate, 20, 'capped by the platform');
  const cleared = await app.request({ method: 'PATCH', url: '/admin/store', payload: { marketingSendRate: null, storefrontUrl: null, newsletterDoubleOptIn: false }, ...admin(owner) });
  t.match(cleared.body.data.store, { marketingSendRate: null, storefrontUrl: null, newsletterDoubleOptIn: false });

  for (const bad of [{}, { unknownField: 1 }, { currency: 'EURO' }, { timezone: 'Mars/Olympus' }, { marketingSendRate: 0 }, { storefrontUrl: 'ftp://x' }, { shippingMethods: [{ name: 'X', price: -1 }] }, { newsletterDoubleOptIn: 'maybe' }, { manualPaymentDays: 0 }]) {
    const response = await app.request({ method: 'PATCH', url: '/admin/store', payload: bad, ...admin(owner) });
    t.equal(response.status, 422, `refused: ${JSON.stringify(bad)}`);
    t.equal(response.body.error.code, 'validation_failed');
  }
  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { name: 'x' }, token: staff.accessToken, storeId: owner.store.id })).status, 403);
});

t.test('currency is locked (409) once the orders module says the store has orders', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  // The orders module answers through the registry; this stand-in says only `owner` has orders.
  const standIn = { name: 'orders-stand-in', locksStoreCurrency: async (_db: unknown, storeId: string) => storeId === owner.store.id };
  MODULES.push(standIn);
  t.teardown(() => void MODULES.splice(MODULES.indexOf(standIn), 1));

  const locked = await app.request({ method: 'PATCH', url: '/admin/store', payload: { currency: 'GBP' }, ...admin(owner) });
  t.equal(locked.status, 409);
  t.equal(locked.body.error.code, 'conflict');
  t.match(locked.body.error.details, [{ path: 'currency' }]);
  const same = await app.request({ method: 'PATCH', url: '/admin/store', payload: { currency: 'USD', name: 'Same currency is fine' }, ...admin(owner) });
  t.equal(same.status, 200);
  const free = await app.request({ method: 'PATCH', url: '/admin/store', payload: { currency: 'GBP' }, ...admin(other) });
  t.equal(free.status, 200);
  t.equal(free.body.data.store.currency, 'GBP');
});

t.test('dashboard: setup flags and figures from every module', async (t) => {
  const owner = await signupOwner(app);
  const empty = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(empty.status, 200);
  t.same(Object.keys(empty.body.data).sort(), ['openIssues', 'recentOrders', 'setup', 'stats', 'store']);
  t.same(empty.body.data.setup, { paymentsConnected: false, domainVerified: false, domainConnected: false, emailConfigured: false, hasProducts: false });
  t.same(empty.body.data.stats, { ordersCount: 0, revenue30d: 0, customersCount: 0, subscribersCount: 0, productsCount: 0, pendingReviews: 0, lowStockVariants: 0 });

  await createProduct(app, owner, { title: 'Thing', variants: [{ sku: 'T1', title: 'T', price: 100, inventoryQuantity: 1 }] });
  await app.ctx.db('customers').insert([
    { storeId: owner.store.id, email: 'a@example.com', emailMarketing: 'subscribed' },
    { storeId: owner.store.id, email: 'b@example.com' }
  ]);
  const before = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.store.updatedAt;
  await new Promise((resolve) => setTimeout(resolve, 5));
  await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host: 'smtp.example.com', port: 25 } } }, ...admin(owner) });
  const filled = await app.request({ url: '/admin/store', ...admin(owner) });
  t.ok(new Date(filled.body.data.store.updatedAt) > new Date(before), 'an email-only change moves updatedAt');
  t.match(filled.body.data.setup, { hasProducts: true, emailConfigured: true });
  t.match(filled.body.data.stats, { productsCount: 1, customersCount: 2, subscribersCount: 1, lowStockVariants: 1 });
});

t.test('dashboard customer counts (trigger-kept) match the table through inserts, upserts, updates and deletes', async (t) => {
  const a = await signupOwner(app);
  const b = await signupOwner(app);
  const db = app.ctx.db;
  const check = async (label: string) => {
    for (const owner of [a, b]) {
      const real = await db('customers').where({ storeId: owner.store.id }).first(db.raw('count(*)::int as customers'), db.raw(`(count(*) filter (where email_marketing = 'subscribed'))::int as subscribers`));
      const stats = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.stats;
      t.same({ customers: stats.customersCount, subscribers: stats.subscribersCount }, real, `${label}: store ${owner === a ? 'a' : 'b'}`);
    }
  };
  await db('customers').insert(Array.from({ length: 30 }, (_, i) => ({ storeId: i % 3 ? a.store.id : b.store.id, email: `c${i}@example.com`, emailMarketing: i % 2 ? 'subscribed' : 'not_subscribed' })));
  await check('bulk insert across stores');
  await db.raw(
    `insert into customers (store_id, email, email_marketing) values (?, 'c1@example.com', 'unsubscribed'), (?, 'new@example.com', 'subscribed')
     on conflict (store_id, lower(email) text_pattern_ops) do update set email_marketing = excluded.email_marketing`,
    [a.store.id, a.store.id]
  );
  await check('upsert');
  await db('customers').where({ storeId: a.store.id }).update({ emailMarketing: 'subscribed' });
  await db('customers').where({ storeId: a.store.id }).update({ ordersCount: db.raw('orders_count + 1') });
  await check('updates');
  await Promise.all(Array.from({ length: 10 }, (_, i) => db('customers').insert({ storeId: b.store.id, email: `race${i}@example.com`, emailMarketing: 'subscribed' })));
  await db('customers').where({ storeId: a.store.id }).whereIn('email', ['c1@example.com', 'c2@example.com']).delete();
  await check('concurrent inserts and a delete');
});

t.test('concurrent dashboard requests share one computation; a settings change is seen at once', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  let statements = 0;
  app.ctx.db.on('query', () => (statements += 1));

  statements = 0;
  const alone = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(alone.status, 200);
  const perDashboard = statements;
  t.ok(perDashboard > 3, `one dashboard reads several modules (${perDashboard} statements)`);

  statements = 0;
  const together = await Promise.all(Array.from({ length: 20 }, () => app.request({ url: '/admin/store', ...admin(owner) })));
  t.ok(together.every((response) => response.status === 200));
  t.same(new Set(together.map((response) => JSON.stringify(response.body.data.stats))).size, 1);
  // Authentication reads the membership per request; the dashboard's own reads are shared.
  t.ok(statements < perDashboard * 5, `20 concurrent dashboards cost ${statements} statements, not ${perDashboard * 20}`);

  const inFlight = Array.from({ length: 5 }, () => app.request({ url: '/admin/store', ...admin(owner) }));
  const renamed = await app.request({ method: 'PATCH', url: '/admin/store', payload: { name: 'Renamed Store' }, ...admin(owner) });
  t.equal(renamed.status, 200);
  const after = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(after.body.data.store.name, 'Renamed Store', 'a request after the change does not join a computation from before it');
  await Promise.all(inFlight);
});
