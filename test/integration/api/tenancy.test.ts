import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('admin routes: 401, 400, 403 and roles exactly as the contract says', async (t) => {
  const a = await signupOwner(app);
  const b = await signupOwner(app);

  const noJwt = await app.request({ url: '/admin/store', storeId: a.store.id });
  t.equal(noJwt.status, 401);
  t.equal(noJwt.body.error.code, 'unauthenticated');
  t.ok(noJwt.headers['www-authenticate']);

  const noStore = await app.request({ url: '/admin/store', token: a.accessToken });
  t.equal(noStore.status, 400);
  t.equal(noStore.body.error.code, 'bad_request');

  const badStore = await app.request({ url: '/admin/store', token: a.accessToken, storeId: 'nope' });
  t.equal(badStore.status, 400);

  const otherStore = await app.request({ url: '/admin/store', token: a.accessToken, storeId: b.store.id });
  t.equal(otherStore.status, 403, "a member of A sending B's id is refused");
  t.equal(otherStore.body.error.code, 'forbidden');

  const own = await app.request({ url: '/admin/store', token: a.accessToken, storeId: a.store.id });
  t.equal(own.status, 200);
  t.equal(own.body.data.store.id, a.store.id);
  t.match(own.body.data.stats, { ordersCount: 0, productsCount: 0, customersCount: 0 });
  t.match(own.body.data.setup, { paymentsConnected: false, hasProducts: false });
});

t.test('staff may read the dashboard but not admin-only routes', async (t) => {
  const owner = await signupOwner(app);
  const staff = await addMember(app, owner.store.id, 'staff');
  const admin = await addMember(app, owner.store.id, 'admin');
  const as = (who: typeof owner) => ({ token: who.accessToken, storeId: owner.store.id });

  t.equal((await app.request({ url: '/admin/store', ...as(staff) })).status, 200);
  for (const [method, url, payload] of [
    ['PATCH', '/admin/store', { name: 'Renamed' }],
    ['GET', '/admin/discounts', undefined],
    ['POST', '/admin/discounts', { code: 'X', type: 'percentage', value: 5 }],
    ['GET', '/admin/store/storefront-tokens', undefined],
    ['POST', '/admin/store/email/test', { toEmail: 'x@example.com' }]
  ] as const) {
    const response = await app.request({ method, url, payload, ...as(staff) });
    t.equal(response.status, 403, `staff refused on ${method} ${url}`);
    t.equal(response.body.error.code, 'forbidden');
  }
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { name: 'By admin' }, ...as(admin) })).status, 200);
  t.equal((await app.request({ url: '/admin/discounts', ...as(admin) })).status, 200);
});

t.test('HTTP conventions: envelope on 404/405/413/415, unknown keys, __proto__, malformed JSON', async (t) => {
  const owner = await signupOwner(app);
  const admin = { token: owner.accessToken, storeId: owner.store.id };

  const missing = await app.request({ url: '/nothing-here' });
  t.equal(missing.status, 404);
  t.same(missing.body, { success: false, error: { code: 'not_found', message: 'Route not found' }, meta: {} });

  const wrongMethod = await app.request({ method: 'DELETE', url: '/auth/signup' });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.headers.allow, 'POST');
  t.equal(wrongMethod.body.success, false);
  // A literal path whose other method would fall into a sibling's {id} route is still a known path.
  for (const [url, allow] of [['/admin/customers/export', 'POST'], ['/admin/marketing/campaigns/generic', 'POST'], ['/admin/customers/import/', 'POST']]) {
    const literal = await app.request({ url: url!, headers: { authorization: `Bearer ${admin.token}`, 'x-store-id': admin.storeId } });
    t.equal(literal.status, 405, `GET ${url} is a wrong method, not a bad id`);
    t.equal(literal.headers.allow, allow);
  }
  const byId = await app.request({ url: '/admin/customers/not-a-uuid', headers: { authorization: `Bearer ${admin.token}`, 'x-store-id': admin.storeId } });
  t.equal(byId.status, 422, 'a bad id on the {id} route is still a validation failure');

  const malformed = await app.request({ method: 'POST', url: '/auth/login', payload: '{"email":', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.status, 400);
  t.equal(malformed.body.error.code, 'bad_request');

  const proto = await app.request({
    method: 'POST',
    url: '/auth/login',
    payload: '{"email":"a@example.com","password":"x","__proto__":{"admin":true}}',
    headers: { 'content-type': 'application/json' }
  });
  t.equal(proto.status, 400, '__proto__ in a body is refused');
  t.equal(proto.body.success, false);

  const unknownKey = await app.request({ method: 'PATCH', url: '/admin/store', payload: { name: 'x', isAdmin: true }, ...admin });
  t.equal(unknownKey.status, 422);
  t.same(unknownKey.body.error.details, [{ path: 'isAdmin', message: 'isAdmin is not allowed' }]);

  const wrongType = await app.request({ method: 'POST', url: '/auth/login', payload: 'email=a', headers: { 'content-type': 'text/plain' } });
  t.equal(wrongType.status, 415);
  t.equal(wrongType.body.error.code, 'unsupported_media_type');

  const huge = await app.request({
    method: 'POST',
    url: '/auth/login',
    payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024 + 10) }),
    headers: { 'content-type': 'application/json' }
  });
  t.equal(huge.status, 413);
  t.equal(huge.body.error.code, 'payload_too_large');

  const badParam = await app.request({ url: '/admin/discounts/not-a-uuid', ...admin });
  t.equal(badParam.status, 422);
  t.equal(badParam.body.error.details[0].path, 'discountId');
});

t.test('store settings: PATCH validates and persists; GET /admin/store reflects it', async (t) => {
  const owner = await signupOwner(app);
  const admin = { token: owner.accessToken, storeId: owner.store.id };
  const patch = await app.request({
    method: 'PATCH',
    url: '/admin/store',
    payload: {
      name: '  Trimmed Name  ',
      contactEmail: 'Hello@Shop.Example',
      timezone: 'Europe/Paris',
      currency: 'eur',
      manualPaymentsEnabled: false,
      shippingMethods: [{ name: 'Standard', price: 500, freeOverAmount: 5000, countries: ['fr', 'DE'] }]
    },
    ...admin
  });
  t.equal(patch.status, 200);
  const store = patch.body.data.store;
  t.equal(store.name, 'Trimmed Name');
  t.equal(store.contactEmail, 'hello@shop.example');
  t.equal(store.currency, 'EUR');
  t.equal(store.manualPaymentsEnabled, false, 'on by default, off when patched');
  t.equal(store.shippingMethods[0].name, 'Standard');
  t.match(store.shippingMethods[0].id, /^[0-9a-f-]{36}$/);
  t.same(store.shippingMethods[0].countries, ['FR', 'DE']);

  const bad = await app.request({ method: 'PATCH', url: '/admin/store', payload: { timezone: 'Mars/Olympus', currency: 'EURO' }, ...admin });
  t.equal(bad.status, 422);
  t.same(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['currency', 'timezone']);

  const storefront = await app.request({ url: '/storefront/store', storefrontToken: owner.storefrontToken });
  t.equal(storefront.status, 200);
  t.same(storefront.body.data.store, {
    name: 'Trimmed Name',
    slug: owner.store.slug,
    currency: 'EUR',
    contactEmail: 'hello@shop.example',
    shippingCountries: ['DE', 'FR'],
    logoUrl: null,
    pricesIncludeTax: false
  });
});
