import t from 'tap';
import { releaseExpiredSessions } from '../../../src/services/checkout/sessions.js';
import { buildApp, signupOwner, type Owner, type Teardownable, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';

/**
 * A stock count sets what is on hand, the units in open checkouts included: whatever the holds do
 * afterwards (expire, complete), the stock follows the count, never an older figure.
 */

const stockOf = async (app: TestApp, variantId: string) => (await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity')).inventoryQuantity as number;

async function shop(t: Teardownable) {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  return { app, owner };
}

function counter(app: TestApp, owner: Owner, product: { id: string }, variantId: string) {
  return (quantity: number) =>
    app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${variantId}/inventory`, payload: { quantity }, ...admin(owner) });
}

async function expireAll(app: TestApp) {
  await app.ctx.db('checkoutSessions').where({ status: 'pending' }).update({ expiresAt: new Date(Date.now() - 1000) });
  return releaseExpiredSessions(app.ctx);
}

t.test('count to 0 while a checkout holds the stock: expiry leaves 0, completion leaves 0', async (t) => {
  const { app, owner } = await shop(t);
  const product = await sellable(app, owner, 'Lamp', [{ price: 1000, stock: 2 }]);
  const variantId = product.variants[0]!.id;
  const count = counter(app, owner, product, variantId);

  const held = await openSession(app, owner, [{ variantId, quantity: 2 }]);
  t.equal(held.session.status, 201, held.session.raw);
  t.equal(await stockOf(app, variantId), 0, 'the checkout holds both units');

  const zero = await count(0);
  t.equal(zero.status, 200, zero.raw);
  t.equal(zero.body.data.variant.inventoryQuantity, 0);
  t.equal(zero.body.data.reserved, 0, 'a count of 0 leaves nothing held');
  t.match(zero.body.data.adjustment, { delta: 0, quantityAfter: 0, reason: 'stock_count' }, 'the count is in the ledger: 2 on hand became 0');

  t.same(await expireAll(app), { released: 1 });
  t.equal(await stockOf(app, variantId), 0, 'the expired hold brings back nothing the owner counted away');

  // The same count, but the shopper completes: the order goes through (the contract reserves
  // stock until expiry, and a payment may be taken), and the stock stays what the owner counted.
  await count(2);
  const completing = await openSession(app, owner, [{ variantId, quantity: 2 }]);
  t.equal(await stockOf(app, variantId), 0);
  t.equal((await count(0)).status, 200);
  const order = await confirm(app, owner, completing.session.body.data.checkoutSession.id);
  t.equal(order.status, 200, order.raw);
  t.equal(await stockOf(app, variantId), 0, 'never below zero, and not back above the count');
  t.same(await expireAll(app), { released: 0 });
  t.equal(await stockOf(app, variantId), 0);
});

t.test('count to N while held: N after expiry, N less what sold after completion', async (t) => {
  const { app, owner } = await shop(t);
  const product = await sellable(app, owner, 'Chair', [{ price: 1000, stock: 5 }]);
  const variantId = product.variants[0]!.id;
  const count = counter(app, owner, product, variantId);

  await openSession(app, owner, [{ variantId, quantity: 2 }]);
  t.equal(await stockOf(app, variantId), 3);
  const ten = await count(10);
  t.equal(ten.status, 200);
  t.equal(ten.body.data.variant.inventoryQuantity, 8, 'what can still be sold: 10 on hand less the 2 held');
  t.equal(ten.body.data.reserved, 2);
  t.match(ten.body.data.adjustment, { delta: 5, quantityAfter: 8 });
  t.same(await expireAll(app), { released: 1 });
  t.equal(await stockOf(app, variantId), 10, 'after expiry the stock is exactly the count');

  const selling = await openSession(app, owner, [{ variantId, quantity: 2 }]);
  t.equal(await stockOf(app, variantId), 8);
  t.equal((await count(4)).body.data.variant.inventoryQuantity, 2);
  t.equal((await confirm(app, owner, selling.session.body.data.checkoutSession.id)).status, 200);
  t.equal(await stockOf(app, variantId), 2, '4 counted, 2 of them sold');

  // Counting what is on hand again changes nothing and writes no ledger row.
  await openSession(app, owner, [{ variantId, quantity: 1 }]);
  const same = await count(2);
  t.equal(same.body.data.adjustment, null, 'the same count is no change');
  t.equal(same.body.data.variant.inventoryQuantity, 1);
  t.equal(same.body.data.reserved, 1);

  // A delta still moves what can be sold, and says what is held.
  const added = await app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${variantId}/inventory`, payload: { delta: 3 }, ...admin(owner) });
  t.match(added.body.data, { variant: { inventoryQuantity: 4 }, adjustment: { delta: 3 }, reserved: 1 });
});

t.test('a count below what several checkouts hold shortens the newest holds first', async (t) => {
  const { app, owner } = await shop(t);
  const product = await sellable(app, owner, 'Vase', [{ price: 1000, stock: 3 }]);
  const variantId = product.variants[0]!.id;
  const count = counter(app, owner, product, variantId);

  const first = await openSession(app, owner, [{ variantId, quantity: 1 }], { email: 'first@example.com' });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await openSession(app, owner, [{ variantId, quantity: 2 }], { email: 'second@example.com' });
  t.equal(await stockOf(app, variantId), 0);
  const counted = await count(2);
  t.equal(counted.body.data.variant.inventoryQuantity, 0);
  t.equal(counted.body.data.reserved, 2);
  const holds = async (sessionId: string) => (await app.ctx.db('stockReservations').where({ sessionId }).first('quantity')).quantity;
  t.equal(await holds(first.session.body.data.checkoutSession.id), 1, 'the first shopper keeps their unit');
  t.equal(await holds(second.session.body.data.checkoutSession.id), 1, 'the newest hold gave up the unit that is not there');

  t.equal((await confirm(app, owner, first.session.body.data.checkoutSession.id)).status, 200);
  t.equal(await stockOf(app, variantId), 0);
  t.same(await expireAll(app), { released: 1 });
  t.equal(await stockOf(app, variantId), 1, '2 counted, 1 sold: 1 left');
  const ledger = await app.ctx.db('inventoryLedger').where({ variantId });
  t.equal(
    ledger.reduce((sum, row) => sum + row.delta, 0),
    1,
    'the ledger adds up to the stock it ends at (the variant was created with its opening row of 3)'
  );
});

t.test('continue variants: a count below the holds goes below zero, and expiry lands on the count', async (t) => {
  const { app, owner } = await shop(t);
  const product = await sellable(app, owner, 'Print', [{ price: 1000, stock: 0, policy: 'continue' }]);
  const variantId = product.variants[0]!.id;
  await openSession(app, owner, [{ variantId, quantity: 3 }]);
  t.equal(await stockOf(app, variantId), -3);
  const one = await counter(app, owner, product, variantId)(1);
  t.equal(one.body.data.variant.inventoryQuantity, -2);
  t.equal(one.body.data.reserved, 3, 'holds of a continue variant are never shortened');
  await expireAll(app);
  t.equal(await stockOf(app, variantId), 1);
});

t.test('a product update that changes the quantity is a count too', async (t) => {
  const { app, owner } = await shop(t);
  const product = await sellable(app, owner, 'Rug', [{ price: 1000, stock: 5 }]);
  const variantId = product.variants[0]!.id;
  await openSession(app, owner, [{ variantId, quantity: 2 }]);
  const patch = (variant: Record<string, unknown>) =>
    app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { variants: [{ id: variantId, ...variant }] }, ...admin(owner) });

  const roundTrip = await patch({ inventoryQuantity: 3, price: 1200 });
  t.equal(roundTrip.status, 200, roundTrip.raw);
  t.equal(await stockOf(app, variantId), 3, 'sending back what was read changes no stock');
  const zero = await patch({ inventoryQuantity: 0, inventoryPolicy: 'deny' });
  t.equal(zero.status, 200, zero.raw);
  t.equal(zero.body.data.product.variants[0].inventoryQuantity, 0);
  await expireAll(app);
  t.equal(await stockOf(app, variantId), 0, 'the hold that expired after the update brought nothing back');

  // continue → deny with a count in the same update: the count shortens holds under the new policy.
  const backorder = await sellable(app, owner, 'Poster', [{ price: 1000, stock: 0, policy: 'continue' }]);
  const backorderId = backorder.variants[0]!.id;
  await openSession(app, owner, [{ variantId: backorderId, quantity: 2 }]);
  const toDeny = await app.request({
    method: 'PATCH',
    url: `/admin/products/${backorder.id}`,
    payload: { variants: [{ id: backorderId, inventoryQuantity: 1, inventoryPolicy: 'deny' }] },
    ...admin(owner)
  });
  t.equal(toDeny.status, 200, toDeny.raw);
  t.match(toDeny.body.data.product.variants[0], { inventoryQuantity: 0, inventoryPolicy: 'deny' });
  await expireAll(app);
  t.equal(await stockOf(app, backorderId), 1);
});

t.test('counts racing expiries and confirms: no deadlock, and the stock is the count (less what sold after it)', async (t) => {
  const { app, owner } = await shop(t);
  const product = await sellable(app, owner, 'Mug', [{ price: 1000, stock: 100 }]);
  const variantId = product.variants[0]!.id;
  const count = counter(app, owner, product, variantId);

  for (let round = 0; round < 6; round += 1) {
    await count(20);
    const sessions = await Promise.all(Array.from({ length: 4 }, () => openSession(app, owner, [{ variantId, quantity: 2 }])));
    t.ok(sessions.every((s) => s.session.status === 201));
    await app.ctx.db('checkoutSessions').where({ status: 'pending' }).update({ expiresAt: new Date(Date.now() - 1000) });
    const [counted, released] = await Promise.all([count(round), releaseExpiredSessions(app.ctx)]);
    t.equal(counted.status, 200, counted.raw);
    t.equal(released.released, 4);
    t.equal(await stockOf(app, variantId), round, `round ${round}: the count stands whichever ran first`);
  }

  // A confirm holds its session's holds and then inserts order items that reference the variant:
  // a count waiting for those holds must not block that insert (it would deadlock).
  for (let round = 0; round < 5; round += 1) {
    await count(10);
    const selling = await Promise.all(Array.from({ length: 3 }, () => openSession(app, owner, [{ variantId, quantity: 2 }])));
    const soldBefore = Number((await app.ctx.db('orderItems').where({ variantId }).sum('quantity as q').first())!.q ?? 0);
    const [counted, ...confirmed] = await Promise.all([count(9), ...selling.map((s) => confirm(app, owner, s.session.body.data.checkoutSession.id))]);
    t.equal(counted.status, 200, counted.raw);
    t.ok(
      confirmed.every((c) => c.status === 200),
      JSON.stringify(confirmed.map((c) => c.status))
    );
    const sold = Number((await app.ctx.db('orderItems').where({ variantId }).sum('quantity as q').first())!.q) - soldBefore;
    const left = await stockOf(app, variantId);
    // A confirm that committed before the count is in it (the owner counted after that sale); one after it sells from it.
    t.ok(sold === 6 && left >= 9 - sold && left <= 9 && (9 - left) % 2 === 0, `round ${round}: stock ${left} after counting 9 with ${sold} sold around it`);
  }
});
