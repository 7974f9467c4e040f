import t from 'tap';
import { addMember, buildApp, signupOwner } from './helpers/app.js';
import { admin, createProduct } from './helpers/catalog.js';
import { MODULES } from '../src/services/modules/index.js';

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
    manualPaymentsEnabled: true,
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
    manualPaymentsEnabled: true,
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

  for (const bad of [{}, { unknownField: 1 }, { currency: 'EURO' }, { timezone: 'Mars/Olympus' }, { marketingSendRate: 0 }, { storefrontUrl: 'ftp://x' }, { shippingMethods: [{ name: 'X', price: -1 }] }, { newsletterDoubleOptIn: 'maybe' }]) {
    const response = await app.request({ method: 'PATCH', url: '/admin/store', payload: bad, ...admin(owner) });
    t.equal(response.status, 422, `refused: ${JSON.stringify(bad)}`);
    t.equal(response.body.error.code, 'validation_failed');
  }
  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { name: 'x' }, token: staff.accessToken, storeId: owner.store.id })).status, 403);
});

t.test('currency is locked (409) once the orders module says the store has orders', async (t) => {
  const app = await buildApp(t, { workers: false });
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
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const empty = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(empty.status, 200);
  t.same(Object.keys(empty.body.data).sort(), ['openIssues', 'recentOrders', 'setup', 'stats', 'store']);
  t.same(empty.body.data.setup, { paymentsConnected: false, domainVerified: false, emailConfigured: false, hasProducts: false });
  t.same(empty.body.data.stats, { ordersCount: 0, revenue30d: 0, customersCount: 0, subscribersCount: 0, productsCount: 0, pendingReviews: 0, lowStockVariants: 0 });

  await createProduct(app, owner, { title: 'Thing', variants: [{ sku: 'T1', title: 'T', price: 100, inventoryQuantity: 1 }] });
  await app.ctx.db('customers').insert([
    { storeId: owner.store.id, email: 'a@example.com', emailMarketing: 'subscribed' },
    { storeId: owner.store.id, email: 'b@example.com' }
  ]);
  await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host: 'smtp.example.com', port: 25 } } }, ...admin(owner) });
  const filled = await app.request({ url: '/admin/store', ...admin(owner) });
  t.match(filled.body.data.setup, { hasProducts: true, emailConfigured: true });
  t.match(filled.body.data.stats, { productsCount: 1, customersCount: 2, subscribersCount: 1, lowStockVariants: 1 });
});
