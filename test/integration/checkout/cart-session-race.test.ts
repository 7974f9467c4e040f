import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { ADDRESS, methodsOf, sellable, setupShop, sf } from '../../helpers/checkout.js';

/**
 * A cart change racing the opening of a checkout session on the same cart: whichever commits
 * second must see the other. If the change waits for the cart lock while the session is being
 * opened, it must still find and cancel that session (its stock goes back), or a pending session
 * would keep stock and a price for lines the cart no longer has. Invariant after every round: a
 * pending session's lines are the cart's lines, and stock + held + nothing else = the start.
 */

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('a cart change racing a new checkout session never leaves a stale pending session', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Tea', [{ price: 800, stock: 1000 }]);
  const variantId = product.variants[0]!.id;
  const rounds = 25;
  let sessionsOpened = 0;
  let changesApplied = 0;

  for (let round = 0; round < rounds; round += 1) {
    const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId, quantity: 1 }] }, ...sf(owner) });
    const cartId = cart.body.data.cart.id as string;
    await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner).standard }, ...sf(owner) });
    const [session, change] = await Promise.all([
      app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'race@example.com', shippingAddress: ADDRESS }, ...sf(owner) }),
      app.request({ method: 'POST', url: `/storefront/carts/${cartId}/items`, payload: { variantId, quantity: 2 }, ...sf(owner) })
    ]);
    t.equal(session.status, 201, `round ${round}: session opened`);
    t.equal(change.status, 200, `round ${round}: item added`);
    if (session.status === 201) sessionsOpened += 1;
    if (change.status === 200) changesApplied += 1;

    const pending = await app.ctx.db('checkoutSessions').where({ cartId, status: 'pending' }).select('snapshot');
    const lines = await app.ctx.db('cartItems').where({ cartId }).select('variantId', 'quantity');
    for (const row of pending) {
      const snapshot = row.snapshot as { lines: Array<{ variantId: string; quantity: number }> };
      t.same(
        snapshot.lines.map((line) => ({ variantId: line.variantId, quantity: line.quantity })),
        lines.map((line) => ({ variantId: line.variantId, quantity: line.quantity })),
        `round ${round}: a pending session holds the cart's current lines`
      );
    }
    t.ok(pending.length <= 1, `round ${round}: at most one pending session`);
  }

  const variant = await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity');
  const held = await app.ctx.db('stockReservations').where({ variantId, state: 'held' }).sum({ quantity: 'quantity' }).first();
  t.equal(variant.inventoryQuantity + Number(held?.quantity ?? 0), 1000, 'stock plus held units is the starting stock: no hold outlived its session');
  t.equal(sessionsOpened, rounds);
  t.equal(changesApplied, rounds);
});

t.test('a confirm racing a change of its cart: one of them wins cleanly, never a deadlock', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Jam', [{ price: 600, stock: 1000 }]);
  const variantId = product.variants[0]!.id;
  let ordered = 0;
  let changed = 0;
  for (let round = 0; round < 20; round += 1) {
    const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId, quantity: 1 }] }, ...sf(owner) });
    const cartId = cart.body.data.cart.id as string;
    await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner).standard }, ...sf(owner) });
    const session = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'jam@example.com', shippingAddress: ADDRESS }, ...sf(owner) });
    const sessionId = session.body.data.checkoutSession.id as string;
    const [confirmed, change] = await Promise.all([
      app.request({ method: 'POST', url: `/storefront/checkout-sessions/${sessionId}/confirm`, ...sf(owner) }),
      app.request({ method: 'POST', url: `/storefront/carts/${cartId}/items`, payload: { variantId, quantity: 1 }, ...sf(owner) })
    ]);
    if (confirmed.status === 200) {
      ordered += 1;
      t.equal(change.status, 409, `round ${round}: the cart was sold first, so the change is refused`);
      t.equal(change.body.error.code, 'cart_not_open');
    } else {
      changed += 1;
      t.equal(change.status, 200, `round ${round}: the change came first`);
      t.equal(confirmed.status, 409, `round ${round}: and the session it cancelled cannot be confirmed`);
    }
  }
  t.equal(ordered + changed, 20, 'every round settled one way or the other');
  const left = await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity');
  const sold = await app.ctx.db('orderItems').where({ variantId }).sum('quantity as n').first();
  t.equal(left.inventoryQuantity + Number(sold?.n ?? 0), 1000, 'no stock held by a cancelled session, none lost');
});
