import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { ADDRESS, openSession, setupShop, sellable, sf } from '../../helpers/checkout.js';

// Opening a session of one variant takes the stock in the statement that inserts the session and
// sends the COMMIT with it; when the stock is not there the statement fails, so the COMMIT rolls
// everything back. Nothing of the refused session may remain.
t.test('a session refused for stock says how much is left and leaves nothing behind', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Kettle', [{ price: 3000, stock: 3 }]);
  const variant = product.variants[0]!;
  const db = app.ctx.db;
  const stock = async () => (await db('productVariants').where({ id: variant.id }).first('inventoryQuantity')).inventoryQuantity as number;
  const count = async (table: string, where: Record<string, unknown>) => Number(((await db(table).where(where).count('* as n').first()) as { n: string }).n);

  // Cart B holds two units in its lines before cart A takes two of the three at its session.
  const cartB = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: variant.id, quantity: 2 }] }, ...sf(owner) });
  t.equal(cartB.status, 201, cartB.raw);
  const cartBId = cartB.body.data.cart.id as string;
  const a = await openSession(app, owner, [{ variantId: variant.id, quantity: 2 }]);
  t.equal(a.session.status, 201, a.session.raw);
  t.equal(await stock(), 1);
  const ledgerBefore = await count('inventoryLedger', { variantId: variant.id });

  const methods = await app.request({ url: `/storefront/carts/${cartBId}/shipping-methods`, ...sf(owner) });
  const shipping = await app.request({ method: 'POST', url: `/storefront/carts/${cartBId}/shipping-method`, payload: { shippingMethodId: methods.body.data.shippingMethods[0].id }, ...sf(owner) });
  t.equal(shipping.status, 200, shipping.raw);
  const refused = await app.request({
    method: 'POST',
    url: `/storefront/carts/${cartBId}/checkout-session`,
    payload: { email: 'late@example.com', shippingAddress: { ...ADDRESS, country: 'US' } },
    ...sf(owner)
  });
  t.equal(refused.status, 409, refused.raw);
  t.equal(refused.body.error.code, 'insufficient_inventory');
  t.match(refused.body.error.details, [{ path: `items.${variant.id}`, message: 'only 1 left of Kettle' }], 'the refusal says how much is left');

  t.equal(await stock(), 1, 'stock untouched');
  t.equal(await count('checkoutSessions', { cartId: cartBId }), 0, 'no session row');
  t.equal(await count('stockReservations', { variantId: variant.id, state: 'held' }), 1, "only cart A's hold");
  t.equal(await count('inventoryLedger', { variantId: variant.id }), ledgerBefore, 'no ledger row');
  const cart = await db('carts').where({ id: cartBId }).first('email', 'checkoutOpened', 'status');
  t.match(cart, { email: null, checkoutOpened: false, status: 'open' }, "the cart's own changes rolled back with it");

  // The cart still works: with fewer units it opens a session.
  const items = await app.request({ url: `/storefront/carts/${cartBId}`, ...sf(owner) });
  const lineId = items.body.data.cart.items[0].id as string;
  const fewer = await app.request({ method: 'PATCH', url: `/storefront/carts/${cartBId}/items/${lineId}`, payload: { quantity: 1 }, ...sf(owner) });
  t.equal(fewer.status, 200, fewer.raw);
  const retried = await app.request({ method: 'POST', url: `/storefront/carts/${cartBId}/checkout-session`, payload: { email: 'late@example.com', shippingAddress: ADDRESS }, ...sf(owner) });
  t.equal(retried.status, 201, retried.raw);
  t.equal(await stock(), 0);
});
