import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { connectStripe, startStripeServer, type StripeServer } from '../../helpers/stripe-server.js';

/**
 * Refunds go to the payments that hold the money (docs/orders-by-hand.md, Refunds): a Stripe order
 * whose edit's balance was paid by link holds two PaymentIntents; a refund is split newest payment
 * first, one Stripe refund per payment with its own idempotency key, never above what a payment
 * holds, and concurrent refunds never add up to more than the two payments together.
 */

/** A Stripe order of one unit (paid by its PaymentIntent), then an edit adding one unit of `added`, its balance paid through the link. */
async function twoPayments(app: TestApp, stripe: StripeServer, owner: Owner, accountId: string, variantId: string, added: string, email: string) {
  const { session } = await openSession(app, owner, [{ variantId, quantity: 1 }], { email });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${session.raw}`);
  const firstIntent = [...stripe.intents.keys()].pop()!;
  stripe.setIntentStatus(firstIntent, 'succeeded');
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.raw}`);
  const order = confirmed.body.data.order as { id: string; total: number };
  const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId: added, quantity: 1 }], collect: 'invoice' }, ...admin(owner) });
  if (edited.status !== 201) throw new Error(`edit: ${edited.status} ${edited.raw}`);
  const token = (edited.body.data.edit.invoice.url as string).split('/public/invoices/')[1]!;
  const pay = await app.request({ method: 'POST', url: `/public/invoices/${token}/pay` });
  const balanceIntent = stripe.setIntentStatus(pay.body.data.payment.paymentIntentId, 'succeeded');
  const paid = event('payment_intent.succeeded', { ...balanceIntent }, accountId);
  await deliver(app, paid);
  await processed(app, paid.id);
  return { order, firstIntent, balanceIntent: balanceIntent.id, firstAmount: order.total, balanceAmount: edited.body.data.edit.difference as number };
}

t.test('a refund goes to the balance paid by link first, then to the first payment, one Stripe refund each; a retry asks no payment twice', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Mug', [
    { price: 1000, stock: 50 },
    { price: 1200, stock: 50 }
  ]);
  const [m0, m1] = product.variants;
  const paid = await twoPayments(app, stripe, owner, accountId, m0!.id, m1!.id, 'two@example.com');
  t.equal(paid.balanceAmount, 1200);
  const refund = (amount: number, key?: string) =>
    app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds`, payload: { amount, reason: 'split', notifyCustomer: false }, headers: key ? { 'idempotency-key': key } : {}, ...admin(owner) });

  // 1500: the balance (1200, newest) then 300 of the first payment.
  const first = await refund(1500, 'split-1');
  t.equal(first.status, 201, first.raw);
  t.match(first.body.data.refund, {
    status: 'succeeded',
    amount: 1500,
    payments: [
      { provider: 'stripe', paymentIntentId: paid.balanceIntent, amount: 1200 },
      { provider: 'stripe', paymentIntentId: paid.firstIntent, amount: 300 }
    ]
  });
  t.equal(stripe.refundedOf(paid.balanceIntent), 1200, 'the balance paid by link is refunded on its own PaymentIntent');
  t.equal(stripe.refundedOf(paid.firstIntent), 300);
  const keys = stripe.requests.filter((r) => r.path === '/v1/refunds').map((r) => r.idempotencyKey);
  const refundId = first.body.data.refund.id as string;
  t.same(keys, [`order-refund:${refundId}:${paid.balanceIntent}`, `order-refund:${refundId}:${paid.firstIntent}`], 'one key per payment, from the refund');
  // The same request again (Idempotency-Key): answered again, no payment asked twice.
  const replay = await refund(1500, 'split-1');
  t.equal(replay.status, 201);
  t.equal(stripe.refundedOf(paid.balanceIntent) + stripe.refundedOf(paid.firstIntent), 1500);

  // The next refund: the balance holds nothing more, the first payment the rest.
  const second = await refund(500);
  t.equal(second.status, 201, second.raw);
  t.match(second.body.data.refund.payments, [{ paymentIntentId: paid.firstIntent, amount: 500 }]);
  t.equal(second.body.data.refund.payments.length, 1);
  // More than is left is refused before any payment is asked.
  const left = paid.firstAmount + paid.balanceAmount - 2000;
  t.equal((await refund(left + 1)).status, 409);
  const last = await refund(left);
  t.equal(last.status, 201, last.raw);
  t.equal(stripe.refundedOf(paid.firstIntent), paid.firstAmount, 'the first payment is refunded in full, never more');
  t.equal(stripe.refundedOf(paid.balanceIntent), 1200);
  t.equal(last.body.data.order.paymentStatus, 'refunded');
});

t.test('20 concurrent refunds of an order paid in two payments never exceed either payment nor their sum', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Lamp', [
    { price: 1000, stock: 50 },
    { price: 1000, stock: 50 }
  ]);
  const paid = await twoPayments(app, stripe, owner, accountId, product.variants[0]!.id, product.variants[1]!.id, 'race@example.com');
  const total = paid.firstAmount + paid.balanceAmount;
  t.equal(total, 3500, '2500 paid at checkout, 1000 by link');
  const results = await Promise.all(
    Array.from({ length: 20 }, () => app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds`, payload: { amount: 300, reason: 'race', notifyCustomer: false }, ...admin(owner) }))
  );
  t.equal(results.filter((r) => r.status >= 500).length, 0);
  t.equal(results.filter((r) => r.status === 201).length, 11, '11 × 300 fit in 3500');
  t.same([...new Set(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.body.error.code}`))], ['409 refund_exceeds_payment']);
  t.equal(stripe.refundedOf(paid.balanceIntent), 1000, 'the balance is refunded first, in full, never more');
  t.equal(stripe.refundedOf(paid.firstIntent), 2300);
  const row = await app.ctx.db('orders').where({ storeId: owner.store.id, id: paid.order.id }).first();
  t.equal(Number(row.amountRefunded), 3300);
  t.equal(stripe.requests.filter((r) => r.path === '/v1/refunds' && r.body.amount && Number(r.body.amount) <= 0).length, 0);
});

t.test("a refund made in Stripe's dashboard on the balance payment is recorded against that payment, and later refunds ask it only for what it still holds", async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Vase', [
    { price: 1000, stock: 50 },
    { price: 1200, stock: 50 }
  ]);
  const paid = await twoPayments(app, stripe, owner, accountId, product.variants[0]!.id, product.variants[1]!.id, 'dash@example.com');

  // The merchant refunds 500 of the balance in Stripe's dashboard: we hear of it by its event only.
  const dashboard = stripe.dashboardRefund(paid.balanceIntent, 500);
  const created = event('refund.created', { ...dashboard }, accountId);
  await deliver(app, created);
  t.match(await processed(app, created.id), { status: 'processed' }, 'the refund of the balance PaymentIntent finds its order');
  const order = await app.request({ url: `/admin/orders/${paid.order.id}`, ...admin(owner) });
  t.equal(order.body.data.order.amountRefunded, 500);
  const refunds = await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: paid.order.id });
  t.equal(refunds.length, 1);
  t.match(refunds[0], { source: 'stripe', status: 'succeeded', stripeRefundId: dashboard.id });
  t.same(refunds[0].payments, [{ provider: 'stripe', paymentIntentId: paid.balanceIntent, amount: 500, stripeRefundId: dashboard.id }], 'recorded against the payment it came from');
  // The same refund again (charge.refunded listing it) records nothing more.
  const charge = event('charge.refunded', { id: dashboard.charge, object: 'charge', amount: 1200, amount_refunded: 500, refunded: false, currency: dashboard.currency, payment_intent: paid.balanceIntent, refunds: { data: [{ ...dashboard }] } }, accountId);
  await deliver(app, charge);
  await processed(app, charge.id);
  t.equal((await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: paid.order.id })).length, 1);
  t.equal(Number((await app.ctx.db('orders').where({ storeId: owner.store.id, id: paid.order.id }).first()).amountRefunded), 500, "the balance's own charge says nothing about the order's first payment");

  // 1500 more: the balance gives only the 700 it still holds, the first payment the rest.
  const refund = await app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds`, payload: { amount: 1500, reason: 'after dashboard', notifyCustomer: false }, ...admin(owner) });
  t.equal(refund.status, 201, refund.raw);
  t.match(refund.body.data.refund.payments, [
    { paymentIntentId: paid.balanceIntent, amount: 700 },
    { paymentIntentId: paid.firstIntent, amount: 800 }
  ]);
  t.equal(stripe.refundedOf(paid.balanceIntent), 1200, 'the balance is refunded in full, never more');
  t.equal(stripe.refundedOf(paid.firstIntent), 800);
  t.equal(refund.body.data.order.amountRefunded, 2000);
});
