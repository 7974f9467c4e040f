import t from 'tap';
import { MAX_LINE_QUANTITY } from '../../../src/services/checkout/carts.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { sellable, setupShop, sf } from '../../helpers/checkout.js';

/**
 * Adding to a cart that never opened a checkout takes one statement that reads the line before it
 * gets the cart lock. Concurrent adds to one cart must still hold the line to the stock of a
 * `deny` variant and to MAX_LINE_QUANTITY, each refusal saying why.
 */

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('concurrent adds of one variant to one cart never pass its stock', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Kettle', [{ price: 2500, stock: 10 }]);
  const variantId = product.variants[0]!.id;
  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: {}, ...sf(owner) });
  const cartId = cart.body.data.cart.id as string;

  const adds = await Promise.all(
    Array.from({ length: 20 }, () => app.request({ method: 'POST', url: `/storefront/carts/${cartId}/items`, payload: { variantId, quantity: 1 }, ...sf(owner) }))
  );
  const added = adds.filter((response) => response.status === 200);
  const refused = adds.filter((response) => response.status === 409);
  t.equal(added.length, 10, 'exactly the stock was added');
  t.equal(refused.length, 10, 'every other add was refused');
  t.ok(refused.every((response) => response.body.error.code === 'insufficient_inventory'), 'refused as insufficient_inventory');
  const line = await app.ctx.db('cartItems').where({ cartId }).first('quantity');
  t.equal(line.quantity, 10, 'the line holds the stock, no more');
  t.same(
    added.map((response) => response.body.data.cart.items[0].quantity).sort((a: number, b: number) => a - b),
    Array.from({ length: 10 }, (_, i) => i + 1),
    'each success answered with the cart as its own add left it'
  );
});

t.test('concurrent adds never take a line past the line limit', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Print', [{ price: 100, stock: 0, policy: 'continue' }]);
  const variantId = product.variants[0]!.id;
  const rounds = 10;
  for (let round = 0; round < rounds; round += 1) {
    const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: {}, ...sf(owner) });
    const cartId = cart.body.data.cart.id as string;
    const chunk = Math.floor(MAX_LINE_QUANTITY * 0.4);
    const adds = await Promise.all(
      Array.from({ length: 4 }, () => app.request({ method: 'POST', url: `/storefront/carts/${cartId}/items`, payload: { variantId, quantity: chunk }, ...sf(owner) }))
    );
    t.same(adds.map((response) => response.status).sort(), [200, 200, 422, 422], `round ${round}: two adds fit, two are refused`);
    const line = await app.ctx.db('cartItems').where({ cartId }).first('quantity');
    t.equal(line.quantity, 2 * chunk, `round ${round}: the line stops below the limit`);
  }
});

t.test('choosing shipping while an item is added answers with the lines of the cart it wrote', async (t) => {
  const owner = await signupOwner(app);
  const methods = await setupShop(app, owner);
  const product = await sellable(app, owner, 'Socks', [{ price: 500, stock: 1000 }, { price: 700, stock: 1000 }]);
  const [first, second] = product.variants.map((v) => v.id) as [string, string];
  let shippingWroteLast = 0;
  for (let round = 0; round < 30; round += 1) {
    const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: first, quantity: 1 }] }, ...sf(owner) });
    const cartId = cart.body.data.cart.id as string;
    const [added, shipping] = await Promise.all([
      app.request({ method: 'POST', url: `/storefront/carts/${cartId}/items`, payload: { variantId: second, quantity: 1 }, ...sf(owner) }),
      app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methods.standard }, ...sf(owner) })
    ]);
    t.equal(added.status, 200);
    t.equal(shipping.status, 200);
    // The row keeps the updated_at of whichever change took the cart lock last. When that was the
    // shipping choice, the item was already in the cart it wrote, and its answer must show it.
    const row = await app.ctx.db('carts').where({ id: cartId }).first('updatedAt');
    const last = new Date(row.updatedAt).getTime();
    if (last === new Date(shipping.body.data.cart.updatedAt).getTime() && last !== new Date(added.body.data.cart.updatedAt).getTime()) {
      shippingWroteLast += 1;
      t.equal(shipping.body.data.cart.items.length, 2, `round ${round}: the shipping answer shows the item added before it`);
      t.equal(shipping.body.data.cart.subtotal, 1200);
    }
  }
  t.ok(shippingWroteLast > 0, 'the shipping choice took the lock last in some rounds');
});
