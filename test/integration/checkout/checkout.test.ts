import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, confirm, methodsOf, openSession, setupShop, sellable, sf } from '../../helpers/checkout.js';

const stockOf = async (app: any, variantId: string) => (await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity')).inventoryQuantity;

// One app for the file (issue #32); each test signs up its own store. The expiry test runs the
// app-wide release job and counts what it released, so it builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('checkout: session reserves, confirm creates the order once, with customer, email and tracking', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Lamp', [{ price: 4500, stock: 10 }]);
  const variant = product.variants[0]!;

  const { cartId, session } = await openSession(app, owner, [{ variantId: variant.id, quantity: 3 }], { email: 'Buyer@Example.com' });
  t.equal(session.status, 201, session.raw);
  const checkoutSession = session.body.data.checkoutSession;
  t.match(checkoutSession, { status: 'pending', provider: 'manual', amount: 3 * 4500 + 1500, currency: 'USD' });
  t.notOk('clientSecret' in checkoutSession, 'no client secret for manual payments');
  t.ok(new Date(checkoutSession.expiresAt).getTime() > Date.now());
  t.equal(session.body.data.cart.id, cartId);
  t.equal(await stockOf(app, variant.id), 7, 'stock reserved at the session');

  const first = await confirm(app, owner, checkoutSession.id);
  t.equal(first.status, 200, first.raw);
  const order = first.body.data.order;
  t.match(order, {
    number: 1001,
    email: 'buyer@example.com',
    status: 'open',
    paymentStatus: 'pending',
    fulfillmentStatus: 'unfulfilled',
    subtotal: 13500,
    shippingTotal: 1500,
    discountTotal: 0,
    total: 15000,
    currency: 'USD',
    shippingAddress: { country: 'US', city: 'Springfield' }
  });
  t.match(order.items[0], { variantId: variant.id, productId: product.id, title: 'Lamp', quantity: 3, unitPrice: 4500, lineTotal: 13500, fulfilledQuantity: 0 });
  t.match(first.body.data.trackingUrl, /^http:\/\/shop\.test\/api\/v1\/public\/orders\/[\w-]{20,}$/);
  t.equal(await stockOf(app, variant.id), 7, 'confirm converts the reservation; stock taken once');

  const again = await confirm(app, owner, checkoutSession.id);
  t.equal(again.status, 200);
  t.equal(again.body.data.order.id, order.id, 'a second confirm returns the same order');
  t.equal(await app.ctx.db('orders').where({ storeId: owner.store.id }).count('* as c').first().then((r: any) => Number(r.c)), 1);

  const customer = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'buyer@example.com' }).first();
  t.match(customer, { ordersCount: 1, totalSpent: 15000, firstName: 'Sam', lastName: 'Shopper' });
  t.ok(customer.lastOrderAt);
  const customerView = await app.request({ url: `/admin/customers/${customer.id}`, ...admin(owner) });
  t.equal(customerView.body.data.recentOrders[0].id, order.id, 'the customer page lists the order');

  const mail = await app.ctx.db('emailLog').where({ storeId: owner.store.id, templateKey: 'order_confirmation' });
  t.equal(mail.length, 1, 'one confirmation email, queued with the order');
  t.equal(mail[0].toEmail, 'buyer@example.com');
  const outbox = await app.ctx.db('outbox').where({ jobId: mail[0].id }).first();
  // Still in the outbox when the relay has not moved it yet (the PostgreSQL queue is slower): its
  // payload names the log row and carries the message sealed, never the order in clear.
  if (outbox) {
    t.match(outbox.payload, { emailLogId: mail[0].id });
    t.notOk(JSON.stringify(outbox.payload).includes(first.body.data.trackingUrl), 'no tracking link in clear in the queued payload');
  }

  const tracked = await app.request({ url: new URL(first.body.data.trackingUrl).pathname });
  t.equal(tracked.status, 200);
  t.match(tracked.body.data, { order: { number: 1001, status: 'open', total: 15000, currency: 'USD', items: [{ title: 'Lamp', quantity: 3 }], fulfillments: [] }, store: { name: owner.store.name } });
  t.notOk('email' in tracked.body.data.order, 'tracking shows no email');
  t.equal((await app.request({ url: '/public/orders/unknown-token' })).status, 404);

  // The second order of the same email links to the same customer and counts on it.
  const second = await openSession(app, owner, [{ variantId: variant.id, quantity: 1 }], { email: 'buyer@example.com' });
  const secondOrder = await confirm(app, owner, second.session.body.data.checkoutSession.id);
  t.equal(secondOrder.body.data.order.number, 1002, 'per-store sequential numbers');
  t.equal(secondOrder.body.data.order.customerId, customer.id);
  const counted = await app.ctx.db('customers').where({ id: customer.id }).first();
  t.match(counted, { ordersCount: 2, totalSpent: 15000 + 4500 + 1500 });

  const dashboard = await app.request({ url: '/admin/store', ...admin(owner) });
  t.match(dashboard.body.data.stats, { ordersCount: 2, revenue30d: 21000 });
  t.equal(dashboard.body.data.recentOrders.length, 2);
  t.equal(dashboard.body.data.recentOrders[0].number, 1002);
});

t.test('checkout: validation, replaced and expired sessions, provider availability', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const ids = await setupShop(app, owner);
  const product = await sellable(app, owner, 'Vase', [{ price: 1000, stock: 5 }]);
  const variant = product.variants[0]!;
  const session = (cartId: string, payload: Record<string, unknown> = {}) =>
    app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'a@example.com', shippingAddress: ADDRESS, ...payload }, ...sf(owner) });

  const emptyCart = (await app.request({ method: 'POST', url: '/storefront/carts', payload: {}, ...sf(owner) })).body.data.cart.id;
  const empty = await session(emptyCart);
  t.equal(empty.status, 422, 'empty cart');
  const cart = (await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: variant.id, quantity: 2 }] }, ...sf(owner) })).body.data.cart.id;
  const noMethod = await session(cart);
  t.equal(noMethod.status, 422, 'no shipping method');
  t.equal(noMethod.body.error.details[0].path, 'shippingMethod');
  await app.request({ method: 'POST', url: `/storefront/carts/${cart}/shipping-method`, payload: { shippingMethodId: ids.eu }, ...sf(owner) });
  const wrongCountry = await session(cart);
  t.equal(wrongCountry.status, 422, 'method does not ship to the US');
  await app.request({ method: 'POST', url: `/storefront/carts/${cart}/shipping-method`, payload: { shippingMethodId: ids.express }, ...sf(owner) });
  for (const payload of [{ email: 'nope' }, { shippingAddress: { ...ADDRESS, country: 'USA' } }, { shippingAddress: { city: 'x' } }, { extra: 1 }, { provider: 'paypal' }]) {
    const bad = await session(cart, payload);
    t.equal(bad.status, 422, `422 for ${JSON.stringify(payload)}`);
  }
  const stripeNotReady = await session(cart, { provider: 'stripe' });
  t.equal(stripeNotReady.status, 409, 'stripe not connected');
  t.equal(await stockOf(app, variant.id), 5, 'failed sessions reserve nothing');

  const firstSession = await session(cart);
  t.equal(firstSession.status, 201);
  t.equal(await stockOf(app, variant.id), 3);
  const secondSession = await session(cart);
  t.equal(secondSession.status, 201, 'a new session replaces the old one');
  t.equal(await stockOf(app, variant.id), 3, 'the old reservation went back');
  const replaced = await confirm(app, owner, firstSession.body.data.checkoutSession.id);
  t.equal(replaced.status, 409, 'a replaced session cannot be confirmed');

  // Changing the cart cancels the pending session and gives the stock back.
  await app.request({ method: 'POST', url: `/storefront/carts/${cart}/items`, payload: { variantId: variant.id, quantity: 1 }, ...sf(owner) });
  t.equal(await stockOf(app, variant.id), 5);

  // Expiry: the release job gives the stock back; a late confirm takes it again while it lasts.
  const third = await session(cart);
  t.equal(await stockOf(app, variant.id), 2);
  await app.ctx.db('checkoutSessions').where({ id: third.body.data.checkoutSession.id }).update({ expiresAt: new Date(Date.now() - 1000) });
  const { releaseExpiredSessions } = await import('../../../src/services/checkout/sessions.js');
  t.same(await releaseExpiredSessions(app.ctx), { released: 1 });
  t.equal(await stockOf(app, variant.id), 5);
  const late = await confirm(app, owner, third.body.data.checkoutSession.id);
  t.equal(late.status, 200, late.raw);
  t.equal(await stockOf(app, variant.id), 2);

  const unknown = await confirm(app, owner, '00000000-0000-4000-8000-000000000000');
  t.equal(unknown.status, 404);

  await app.request({ method: 'PATCH', url: '/admin/store', payload: { manualPaymentsEnabled: false }, ...admin(owner) });
  const cart2 = (await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: variant.id, quantity: 1 }] }, ...sf(owner) })).body.data.cart.id;
  await app.request({ method: 'POST', url: `/storefront/carts/${cart2}/shipping-method`, payload: { shippingMethodId: ids.express }, ...sf(owner) });
  const noProvider = await session(cart2);
  t.equal(noProvider.status, 409, 'no payment provider enabled');

  // A store that ships nothing has no method to choose: the session goes through without one.
  const digital = await signupOwner(app, { email: 'digital@example.com', storeSlug: 'digital-shop' });
  await setupShop(app, digital, { shippingMethods: [] });
  const download = await sellable(app, digital, 'Ebook', [{ price: 900, stock: 3 }]);
  const ebookCart = (await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: download.variants[0]!.id, quantity: 1 }] }, ...sf(digital) })).body.data.cart.id;
  const noShipping = await app.request({ method: 'POST', url: `/storefront/carts/${ebookCart}/checkout-session`, payload: { email: 'reader@example.com', shippingAddress: ADDRESS }, ...sf(digital) });
  t.equal(noShipping.status, 201, noShipping.raw);
  t.equal(noShipping.body.data.checkoutSession.amount, 900, 'no shipping charged');
  const ebookOrder = await confirm(app, digital, noShipping.body.data.checkoutSession.id);
  t.equal(ebookOrder.status, 200, ebookOrder.raw);
  t.match(ebookOrder.body.data.order, { shippingTotal: 0, total: 900, shippingMethod: null });
});

t.test('race: 50 shoppers, stock 5: exactly 5 orders, 45 clean 409s, stock 0', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Limited', [{ price: 9900, stock: 5 }]);
  const variantId = product.variants[0]!.id;
  const shown = await app.request({ url: `/storefront/products/${product.slug}`, storefrontToken: owner.storefrontToken });
  t.equal(shown.body.data.product.available, true, 'the storefront (cached) shows it in stock');
  // Carts first (adding checks stock too, and all 50 see 5 left), then everyone checks out at once.
  const carts = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { email: `r${i}@example.com`, items: [{ variantId, quantity: 1 }] }, ...sf(owner) });
      await app.request({ method: 'POST', url: `/storefront/carts/${cart.body.data.cart.id}/shipping-method`, payload: { shippingMethodId: methodsOf(owner).express }, ...sf(owner) });
      return cart.body.data.cart.id as string;
    })
  );
  const outcomes = await Promise.all(
    carts.map(async (cartId, i) => {
      const session = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: `r${i}@example.com`, shippingAddress: ADDRESS }, ...sf(owner) });
      if (session.status !== 201) return session;
      return confirm(app, owner, session.body.data.checkoutSession.id);
    })
  );
  const statuses = outcomes.map((o) => o.status);
  t.equal(statuses.filter((s) => s === 200).length, 5, 'exactly 5 orders');
  t.equal(statuses.filter((s) => s === 409).length, 45, '45 clean 409s');
  t.ok(outcomes.filter((o) => o.status === 409).every((o) => o.body.error.code === 'insufficient_inventory'));
  t.equal(await stockOf(app, variantId), 0);
  const soldOut = await app.request({ url: `/storefront/products/${product.slug}`, storefrontToken: owner.storefrontToken });
  t.equal(soldOut.body.data.product.available, false, 'the storefront cache was dropped when the stock went');
  const orders = await app.ctx.db('orders').where({ storeId: owner.store.id }).orderBy('number').pluck('number');
  t.same(orders, [1001, 1002, 1003, 1004, 1005], 'gapless numbers');
});

t.test('race: discount usageLimit 3, 20 concurrent checkouts: exactly 3 uses', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Plenty', [{ price: 2000, stock: 1000 }]);
  const created = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'THREE', type: 'fixed_amount', value: 500, usageLimit: 3 }, ...admin(owner) });
  const discountId = created.body.data.discount.id;
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { code: 'THREE', email: `d${i}@example.com` });
      if (session.status !== 201) return session;
      return confirm(app, owner, session.body.data.checkoutSession.id);
    })
  );
  const ok = outcomes.filter((o) => o.status === 200);
  t.equal(ok.length, 3, 'exactly 3 discounted orders');
  t.ok(ok.every((o) => o.body.data.order.discountTotal === 500 && o.body.data.order.discountCode === 'THREE'));
  const refused = outcomes.filter((o) => o.status !== 200);
  t.ok(refused.every((o) => o.status === 422 && o.body.error.code === 'discount_not_applicable' && o.body.error.details[0].message === 'usage limit reached'));
  const discount = await app.request({ url: `/admin/discounts/${discountId}`, ...admin(owner) });
  t.equal(discount.body.data.discount.usageCount, 3);
});

t.test('race: one session confirmed 10 times at once: one order; Idempotency-Key replays', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Once', [{ price: 3000, stock: 10 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 2 }]);
  const sessionId = session.body.data.checkoutSession.id;
  const responses = await Promise.all(Array.from({ length: 10 }, () => confirm(app, owner, sessionId)));
  t.ok(responses.every((r) => r.status === 200), responses.map((r) => r.status).join(','));
  t.equal(new Set(responses.map((r) => r.body.data.order.id)).size, 1, 'one order id');
  t.equal(Number((await app.ctx.db('orders').where({ storeId: owner.store.id }).count('* as c').first())!.c), 1);
  t.equal(await stockOf(app, product.variants[0]!.id), 8);
  t.equal((await app.ctx.db('emailLog').where({ storeId: owner.store.id, templateKey: 'order_confirmation' })).length, 1, 'one email');

  const { session: other } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
  const otherId = other.body.data.checkoutSession.id;
  const keyed = await Promise.all(Array.from({ length: 5 }, () => confirm(app, owner, otherId, { 'idempotency-key': 'confirm-abc' })));
  t.ok(keyed.every((r) => r.status === 200));
  t.equal(new Set(keyed.map((r) => r.body.data.order.id)).size, 1);
  t.ok(keyed.some((r) => r.headers['idempotent-replayed'] === 'true'), 'later ones are replays');
  const reused = await confirm(app, owner, sessionId, { 'idempotency-key': 'confirm-abc' });
  t.equal(reused.status, 422, 'the same key on another request');

  // No body and `{}` are one request: a retry that serialises the empty body differently replays.
  const { session: third } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
  const thirdId = third.body.data.checkoutSession.id;
  const bare = await confirm(app, owner, thirdId, { 'idempotency-key': 'confirm-empty' });
  const withBraces = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${thirdId}/confirm`, payload: {}, ...sf(owner), headers: { 'idempotency-key': 'confirm-empty' } });
  t.equal(withBraces.status, 200, withBraces.raw);
  t.equal(withBraces.headers['idempotent-replayed'], 'true');
  t.equal(withBraces.body.data.order.id, bare.body.data.order.id);
});
