import t, { type Test } from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { ledgerRestocks, orderOps, stockOf } from '../../helpers/order-ops.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

/**
 * Issue #31 item 2, under concurrency: many cancels, refunds and return receipts with restock on
 * the same lines at once. Each operation locks the variants, then the order row, then the lines
 * (restockOrderLines), so they serialise, and each line's restock is capped at what was sold less
 * what was put back: the stock ends at exactly what it was before the sale (every unit back once),
 * never above, and no line's `restockedQuantity` exceeds its quantity. No request fails with a 5xx.
 */

type Response = { status: number; raw: string };

function noServerErrors(t: Test, results: Response[], allowed: number[]) {
  t.equal(results.filter((r) => r.status >= 500).length, 0, 'no 5xx');
  const unexpected = results.filter((r) => !allowed.includes(r.status));
  t.same(
    unexpected.map((r) => `${r.status} ${r.raw}`),
    [],
    `every answer is one of ${allowed.join(', ')}`
  );
}

async function twoLineShop(t: Test, app: TestApp, owner: Owner, label: string) {
  const a = (await sellable(app, owner, `${label} A`, [{ price: 1000, stock: 10 }])).variants[0]!.id;
  const b = (await sellable(app, owner, `${label} B`, [{ price: 700, stock: 10 }])).variants[0]!.id;
  return { a, b };
}

async function assertOnce(t: Test, app: TestApp, ops: ReturnType<typeof orderOps>, orderId: string, variants: string[]) {
  for (const variantId of variants) {
    t.equal(await stockOf(app, variantId), 10, 'the stock is back to what it was before the sale, not above');
  }
  const order = await ops.order(orderId);
  for (const item of order.items) t.equal(item.restockedQuantity, item.quantity, 'each line put back once, in full');
  for (const [index, variantId] of variants.entries()) {
    t.equal(await ledgerRestocks(app, variantId), order.items[index]!.quantity, 'the ledger counts each unit back once');
  }
}

// One app for the tests without Stripe (issue #32); each signs up its own store, so none sees another's
// data. The Stripe test (the fake Stripe's address) builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('cancels and restocking refunds at once on an unfulfilled order', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const ops = orderOps(app, owner);
  for (let round = 0; round < 3; round++) {
    const { a, b } = await twoLineShop(t, app, owner, `Cup ${round}`);
    const order = await ops.paidOrder([
      { variantId: a, quantity: 3 },
      { variantId: b, quantity: 2 }
    ]);
    const [lineA, lineB] = order.items.map((item) => item.id);
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => ops.cancel(order.id, { restock: true, refund: false })),
      ...Array.from({ length: 6 }, () =>
        ops.refund(order.id, [
          { orderItemId: lineA!, quantity: 1 },
          { orderItemId: lineB!, quantity: 1 }
        ])
      ),
      ...Array.from({ length: 3 }, () => ops.refund(order.id, [{ orderItemId: lineA!, quantity: 1 }]))
    ]);
    noServerErrors(t, results, [200, 201, 409]);
    t.equal(results.filter((r) => r.status === 200).length, 4, 'every cancel answers the cancelled order');
    await assertOnce(t, app, ops, order.id, [a, b]);
  }
});

t.test('return receipts, restocking refunds and refused cancels at once on a fulfilled order', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const ops = orderOps(app, owner);
  for (let round = 0; round < 3; round++) {
    const { a, b } = await twoLineShop(t, app, owner, `Plate ${round}`);
    const order = await ops.paidOrder([
      { variantId: a, quantity: 3 },
      { variantId: b, quantity: 2 }
    ]);
    const [lineA, lineB] = order.items.map((item) => item.id);
    t.equal((await ops.fulfil(order.id)).status, 201);
    // One return per unit, each asked to be received twice (once with its own refund).
    const returnIds: string[] = [];
    for (const orderItemId of [lineA!, lineA!, lineA!, lineB!, lineB!]) {
      const requested = await ops.requestReturn(order.id, [{ orderItemId, quantity: 1 }]);
      t.equal(requested.status, 201, requested.raw);
      returnIds.push(requested.body.data.return.id);
    }
    const results = await Promise.all([
      ...returnIds.map((returnId) => ops.receive(returnId)),
      ...returnIds.map((returnId) => ops.receive(returnId, { refund: true })),
      ...[lineA, lineA, lineA, lineB, lineB].map((orderItemId) => ops.refund(order.id, [{ orderItemId: orderItemId!, quantity: 1 }])),
      ops.cancel(order.id, { restock: true }),
      ops.cancel(order.id, { restock: true, refund: false })
    ]);
    noServerErrors(t, results, [200, 201, 409]);
    // A receipt with refund may answer 409 after receiving (its refund found the units refunded already): the rows say what happened.
    const statuses = (await app.ctx.db('orderReturns').whereIn('id', returnIds).select('status')).map((row: { status: string }) => row.status);
    t.same([...new Set(statuses)].filter((status) => status !== 'received' && status !== 'closed'), [], 'every return was received');
    await assertOnce(t, app, ops, order.id, [a, b]);
  }
});

t.test('a Stripe order: refunds settled after Stripe answers race cancels', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  await connectStripe(app, stripe, owner);
  const ops = orderOps(app, owner);
  for (let round = 0; round < 2; round++) {
    const { a, b } = await twoLineShop(t, app, owner, `Jug ${round}`);
    const { session } = await openSession(app, owner, [
      { variantId: a, quantity: 3 },
      { variantId: b, quantity: 2 }
    ]);
    t.equal(session.status, 201, session.raw);
    stripe.setIntentStatus([...stripe.intents.keys()].pop()!, 'succeeded');
    const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
    t.equal(confirmed.status, 200, confirmed.raw);
    const order = confirmed.body.data.order as { id: string; items: Array<{ id: string }> };
    const [lineA, lineB] = order.items.map((item) => item.id);
    const results = await Promise.all([
      ...[lineA, lineA, lineA, lineA, lineB, lineB, lineB].map((orderItemId) => ops.refund(order.id, [{ orderItemId: orderItemId!, quantity: 1 }])),
      ...Array.from({ length: 3 }, () => ops.cancel(order.id, { restock: true, refund: false }))
    ]);
    noServerErrors(t, results, [200, 201, 409]);
    t.equal(results.filter((r) => r.status === 201).length, 5, 'each unit refunded once');
    const pending = await app.ctx.db('orderRefunds').where({ orderId: order.id, status: 'pending' });
    t.equal(pending.length, 0, 'every refund settled');
    await assertOnce(t, app, ops, order.id, [a, b]);
    const refunds = (await app.request({ url: `/admin/orders/${order.id}`, ...admin(owner) })).body.data.order.refunds as Array<{ items: Array<{ restockedQuantity: number }> }>;
    const byRefunds = refunds.reduce((sum, refund) => sum + refund.items.reduce((s, line) => s + line.restockedQuantity, 0), 0);
    const byCancel = (await app.ctx.db('orderEvents').where({ orderId: order.id, type: 'cancelled' }).first()).data.restockedQuantity as number;
    t.equal(byRefunds + byCancel, 5, "the refunds' and the cancel's restockedQuantity add up to the 5 units sold");
  }
});
