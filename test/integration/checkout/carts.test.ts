import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, confirm, setupShop, sellable, sf } from '../../helpers/checkout.js';

t.test('carts: lines, merging, totals, discounts, shipping, isolation, closing', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const ids = await setupShop(app, owner);
  const shirt = await sellable(app, owner, 'Shirt', [{ price: 1999, stock: 10 }, { price: 2499, stock: 2 }]);
  const mug = await sellable(app, owner, 'Mug', [{ price: 1250, stock: 100 }]);
  const [small, large] = shirt.variants;

  const created = await app.request({ method: 'POST', url: '/storefront/carts', payload: { email: ' Sam@Example.COM ', items: [{ variantId: small!.id, quantity: 2 }] }, ...sf(owner) });
  t.equal(created.status, 201);
  const cart = created.body.data.cart;
  t.match(cart, { status: 'open', currency: 'USD', email: 'sam@example.com', subtotal: 3998, discountTotal: 0, shippingTotal: 0, total: 3998, shippingMethod: null, discountCode: null });
  t.match(cart.id, /^[0-9a-f-]{36}$/);
  t.match(cart.items[0], { variantId: small!.id, productId: shirt.id, quantity: 2, unitPrice: 1999, lineTotal: 3998, sku: 'SHIRT-0' });

  const empty = await app.request({ method: 'POST', url: '/storefront/carts', ...sf(owner) });
  t.equal(empty.status, 201, 'a cart without a body');
  t.same(empty.body.data.cart.items, []);

  // Merge with the existing line, then add another product.
  const merged = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: small!.id, quantity: 1 }, ...sf(owner) });
  t.equal(merged.status, 200);
  t.equal(merged.body.data.cart.items.length, 1);
  t.equal(merged.body.data.cart.items[0].quantity, 3);
  const withMug = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: mug.variants[0]!.id, quantity: 2 }, ...sf(owner) });
  t.equal(withMug.body.data.cart.subtotal, 3 * 1999 + 2 * 1250);
  const mugLine = withMug.body.data.cart.items.find((i: any) => i.variantId === mug.variants[0]!.id);

  const tooMany = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: large!.id, quantity: 3 }, ...sf(owner) });
  t.equal(tooMany.status, 409);
  t.equal(tooMany.body.error.code, 'insufficient_inventory');
  const unknownVariant = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: other.store.id, quantity: 1 }, ...sf(owner) });
  t.equal(unknownVariant.status, 422);
  for (const payload of [{ variantId: small!.id, quantity: 0 }, { variantId: 'nope', quantity: 1 }, { variantId: small!.id, quantity: 1, price: 1 }]) {
    const bad = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload, ...sf(owner) });
    t.equal(bad.status, 422, `422 for ${JSON.stringify(payload)}`);
  }

  const patched = await app.request({ method: 'PATCH', url: `/storefront/carts/${cart.id}/items/${mugLine.id}`, payload: { quantity: 4 }, ...sf(owner) });
  t.equal(patched.status, 200);
  t.equal(patched.body.data.cart.subtotal, 3 * 1999 + 4 * 1250);
  const zero = await app.request({ method: 'PATCH', url: `/storefront/carts/${cart.id}/items/${mugLine.id}`, payload: { quantity: 0 }, ...sf(owner) });
  t.equal(zero.body.data.cart.items.length, 1, 'quantity 0 removes the line');
  const readd = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: mug.variants[0]!.id, quantity: 1 }, ...sf(owner) });
  const readdedLine = readd.body.data.cart.items.find((i: any) => i.variantId === mug.variants[0]!.id);
  const removed = await app.request({ method: 'DELETE', url: `/storefront/carts/${cart.id}/items/${readdedLine.id}`, ...sf(owner) });
  t.equal(removed.status, 200);
  t.equal(removed.body.data.cart.items.length, 1);
  const removedAgain = await app.request({ method: 'DELETE', url: `/storefront/carts/${cart.id}/items/${readdedLine.id}`, ...sf(owner) });
  t.equal(removedAgain.status, 404);

  // Discounts: every refusal reason, then a percentage with the documented rounding.
  const now = Date.now();
  for (const discount of [
    { code: 'OFF15', type: 'percentage', value: 15 },
    { code: 'OLD', type: 'percentage', value: 10, endsAt: new Date(now - 1000).toISOString(), startsAt: new Date(now - 10_000).toISOString() },
    { code: 'SOON', type: 'percentage', value: 10, startsAt: new Date(now + 3600_000).toISOString() },
    { code: 'OFF', type: 'percentage', value: 10, isActive: false },
    { code: 'BIG', type: 'fixed_amount', value: 500, minimumOrderAmount: 100_000 },
    { code: 'SHIP', type: 'free_shipping' }
  ]) {
    const response = await app.request({ method: 'POST', url: '/admin/discounts', payload: discount, ...admin(owner) });
    t.equal(response.status, 201);
  }
  for (const [code, reason] of [['NOPE', 'unknown'], ['OLD', 'expired'], ['SOON', 'not started'], ['OFF', 'inactive'], ['BIG', 'minimum order not met']]) {
    const refused = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/discount`, payload: { code }, ...sf(owner) });
    t.equal(refused.status, 422, `${code} refused`);
    t.equal(refused.body.error.code, 'discount_not_applicable');
    t.equal(refused.body.error.details[0].message, reason);
  }
  const applied = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/discount`, payload: { code: 'off15' }, ...sf(owner) });
  t.equal(applied.status, 200);
  // 3 × 1999 = 5997; 15% = 899.55 → 900 (half up, once on the subtotal).
  t.match(applied.body.data.cart, { discountCode: 'OFF15', subtotal: 5997, discountTotal: 900, total: 5097 });

  // Shipping: listed with the free-over rule, chosen, and refused when unknown.
  const methods = await app.request({ url: `/storefront/carts/${cart.id}/shipping-methods`, ...sf(owner) });
  t.equal(methods.status, 200);
  t.same(methods.body.data.shippingMethods.map((m: any) => m.name), ['Standard', 'Express', 'EU Post']);
  const toUs = await app.request({ url: `/storefront/carts/${cart.id}/shipping-methods?country=US`, ...sf(owner) });
  t.same(toUs.body.data.shippingMethods.map((m: any) => m.name), ['Standard', 'Express'], 'EU-only method hidden for US');
  const chosen = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/shipping-method`, payload: { shippingMethodId: ids.standard }, ...sf(owner) });
  t.match(chosen.body.data.cart, { shippingMethod: { id: ids.standard, name: 'Standard', price: 500 }, shippingTotal: 500, total: 5097 + 500 });
  const badMethod = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/shipping-method`, payload: { shippingMethodId: 'teleport' }, ...sf(owner) });
  t.equal(badMethod.status, 422);
  const wrongCountry = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/shipping-method`, payload: { shippingMethodId: ids.eu, country: 'US' }, ...sf(owner) });
  t.equal(wrongCountry.status, 422);

  // Free shipping discount zeroes shipping; over freeOverAmount the standard method is free anyway.
  const freeShip = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/discount`, payload: { code: 'SHIP' }, ...sf(owner) });
  t.match(freeShip.body.data.cart, { discountCode: 'SHIP', discountTotal: 0, shippingTotal: 0, total: 5997 });
  const noDiscount = await app.request({ method: 'DELETE', url: `/storefront/carts/${cart.id}/discount`, ...sf(owner) });
  t.match(noDiscount.body.data.cart, { discountCode: null, shippingTotal: 500, total: 6497 });
  await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: small!.id, quantity: 3 }, ...sf(owner) });
  const overFree = await app.request({ url: `/storefront/carts/${cart.id}`, ...sf(owner) });
  t.match(overFree.body.data.cart, { subtotal: 6 * 1999, shippingTotal: 0, total: 6 * 1999 }, 'standard is free over 100.00');

  // Another store's token never sees the cart.
  const foreign = await app.request({ url: `/storefront/carts/${cart.id}`, ...sf(other) });
  t.equal(foreign.status, 404);
  const foreignAdd = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: small!.id, quantity: 1 }, ...sf(other) });
  t.equal(foreignAdd.status, 404);
  const noToken = await app.request({ url: `/storefront/carts/${cart.id}` });
  t.equal(noToken.status, 401);

  // A completed cart is closed.
  const session = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/checkout-session`, payload: { email: 'sam@example.com', shippingAddress: ADDRESS }, ...sf(owner) });
  t.equal(session.status, 201, session.raw);
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(confirmed.status, 200, confirmed.raw);
  const closed = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/items`, payload: { variantId: small!.id, quantity: 1 }, ...sf(owner) });
  t.equal(closed.status, 409);
  t.equal(closed.body.error.code, 'cart_not_open');
  const completed = await app.request({ url: `/storefront/carts/${cart.id}`, ...sf(owner) });
  t.equal(completed.body.data.cart.status, 'completed');

  // Expired carts are gone for the shopper and removed by the cleanup.
  await app.ctx.db('carts').where({ id: empty.body.data.cart.id }).update({ expiresAt: new Date(Date.now() - 1000) });
  const expired = await app.request({ url: `/storefront/carts/${empty.body.data.cart.id}`, ...sf(owner) });
  t.equal(expired.status, 404);
  const { deleteExpiredCarts } = await import('../../../src/services/checkout/carts.js');
  const cleaned = await deleteExpiredCarts(app.ctx);
  t.equal(cleaned.deleted, 1);
});

t.test('a cart created with its items lists them, and its order holds them, in the order they were given', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const methods = await setupShop(app, owner);
  const products = [];
  for (const title of ['Anchor', 'Beacon', 'Compass', 'Dinghy', 'Ensign', 'Fender']) products.push(await sellable(app, owner, title, [{ price: 1000, stock: 10 }]));
  const variantIds = products.map((product) => product.variants[0]!.id);
  // Six lines in one request, inserted a few hundred microseconds apart: when their times held only
  // milliseconds, lines that tied came back in the order of their random ids.
  for (const order of [variantIds, [...variantIds].reverse()]) {
    const created = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: order.map((variantId) => ({ variantId, quantity: 1 })) }, ...sf(owner) });
    t.equal(created.status, 201, created.raw);
    const cart = created.body.data.cart;
    t.same(cart.items.map((item: { variantId: string }) => item.variantId), order, 'the cart lists its lines as given');
    const read = await app.request({ url: `/storefront/carts/${cart.id}`, ...sf(owner) });
    t.same(read.body.data.cart.items.map((item: { variantId: string }) => item.variantId), order, 'and reads them back so');
    const shipping = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/shipping-method`, payload: { shippingMethodId: methods.express }, ...sf(owner) });
    t.equal(shipping.status, 200, shipping.raw);
    const session = await app.request({ method: 'POST', url: `/storefront/carts/${cart.id}/checkout-session`, payload: { email: 'sam@example.com', shippingAddress: ADDRESS }, ...sf(owner) });
    t.equal(session.status, 201, session.raw);
    const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
    t.equal(confirmed.status, 200, confirmed.raw);
    t.same(confirmed.body.data.order.items.map((item: { variantId: string }) => item.variantId), order, 'the order keeps the cart\'s order');
  }
});
