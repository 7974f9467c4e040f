import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';
import { admin } from '../../helpers/catalog.js';
import { splitPaidShop } from '../../helpers/split-payments.js';
import { sealAudit } from '../../helpers/audit.js';

/**
 * Refunds go to the payments that hold the money (docs/orders-by-hand.md, Refunds): a Stripe order
 * whose edit's balance was paid by link holds two PaymentIntents; a refund is split newest payment
 * first, one Stripe refund per payment with its own idempotency key, never above what a payment
 * holds, and concurrent refunds never add up to more than the two payments together.
 */

t.test('a refund goes to the balance paid by link first, then to the first payment, one Stripe refund each; a retry asks no payment twice', async (t) => {
  const { stripe, app, owner, paid } = await splitPaidShop(t, { title: 'Mug', email: 'two@example.com' });
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
  const { stripe, app, owner, paid } = await splitPaidShop(t, { title: 'Lamp', email: 'race@example.com', prices: [1000, 1000] });
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
  const { stripe, app, owner, accountId, paid } = await splitPaidShop(t, { title: 'Vase', email: 'dash@example.com' });

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

t.test('a split refund whose later part Stripe refused stays pending and is retried: only the refused part is asked again, under a new key, once however many retries race', async (t) => {
  const { stripe, app, owner, paid } = await splitPaidShop(t, { title: 'Bowl', email: 'disputed@example.com' });
  const orderUrl = `/admin/orders/${paid.order.id}`;

  // The first payment's charge is disputed: the balance (1200) is paid back, its 300 is refused.
  stripe.refusingRefundsOf.add(paid.firstIntent);
  const refused = await app.request({ method: 'POST', url: `${orderUrl}/refunds`, payload: { amount: 1500, reason: 'split', notifyCustomer: false }, ...admin(owner) });
  t.equal(refused.status, 502, refused.raw);
  t.equal(stripe.refundedOf(paid.balanceIntent), 1200, 'the earlier part moved');
  const [pending] = await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: paid.order.id });
  t.equal(pending.status, 'pending', 'neither settled nor released: part of it was paid back');
  const retryUrl = `${orderUrl}/refunds/${pending.id}/retry`;
  const timeline = (await app.request({ url: `${orderUrl}/timeline`, ...admin(owner) })).body.data.events as Array<{ type: string; data: any }>;
  t.match(timeline.find((e) => e.type === 'refund_failed')?.data, { refundId: pending.id, amount: 300, paymentIntentId: paid.firstIntent, partsRefunded: 1, retryable: true });

  // Still refused: the same answer, still pending, the balance not asked again.
  const again = await app.request({ method: 'POST', url: retryUrl, ...admin(owner) });
  t.equal(again.status, 502, again.raw);
  t.equal((await app.ctx.db('orderRefunds').where({ id: pending.id }).first()).status, 'pending');

  // The dispute is over: ten retries at once refund the part once and settle the refund.
  stripe.refusingRefundsOf.delete(paid.firstIntent);
  const retries = await Promise.all(Array.from({ length: 10 }, () => app.request({ method: 'POST', url: retryUrl, ...admin(owner) })));
  t.same([...new Set(retries.map((r) => r.status))], [200], retries.map((r) => r.raw).find((raw) => !raw.includes('"succeeded"')) ?? '');
  t.match(retries[0]!.body.data.refund, { id: pending.id, status: 'succeeded', amount: 1500, payments: [{ paymentIntentId: paid.balanceIntent, amount: 1200 }, { paymentIntentId: paid.firstIntent, amount: 300 }] });
  t.equal(retries[0]!.body.data.order.amountRefunded, 1500);
  await sealAudit(app, owner.store.id);
  const audited = await app.ctx.db('auditLog').where({ storeId: owner.store.id, resourceType: '/api/v1/admin/orders/{orderId}/refunds/{refundId}/retry' });
  t.equal(audited.length, 10, 'each retry that answered 200 is in the audit log, by the member');
  t.ok(audited.every((row: { actorUserId: string }) => row.actorUserId === owner.user.id));
  t.equal(stripe.refundedOf(paid.firstIntent), 300, 'the refused part refunded once');
  t.equal(stripe.refundedOf(paid.balanceIntent), 1200, 'the accepted part never asked twice');
  const keys = stripe.requests.filter((r) => r.path === '/v1/refunds').map((r) => r.idempotencyKey);
  t.same(keys.filter((k) => k?.includes(paid.balanceIntent)), [`order-refund:${pending.id}:${paid.balanceIntent}`], 'the balance was asked once');
  t.same([...new Set(keys.filter((k) => k?.includes(paid.firstIntent)))], [`order-refund:${pending.id}:${paid.firstIntent}`, `order-refund:${pending.id}:${paid.firstIntent}:retry-1`, `order-refund:${pending.id}:${paid.firstIntent}:retry-2`], 'a new key after each refusal, one for the racing retries');

  // Nothing left to retry; another store's refund is not found.
  const done = await app.request({ method: 'POST', url: retryUrl, ...admin(owner) });
  t.equal(done.status, 409);
  t.equal(done.body.error.code, 'refund_not_pending');
  const other = await signupOwner(app);
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds/${pending.id}/retry`, ...admin(other) })).status, 404);
  t.equal((await app.request({ method: 'POST', url: `${orderUrl}/refunds/00000000-0000-4000-8000-000000000000/retry`, ...admin(owner) })).status, 404);
});

t.test('Stripe refusing a refund outright releases it; Stripe failing without an answer leaves it pending for a retry under the same key', async (t) => {
  const { stripe, app, owner, paid } = await splitPaidShop(t, { title: 'Plate', email: 'outright@example.com' });
  const refund = (amount: number) => app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds`, payload: { amount, reason: 'r', notifyCustomer: false }, ...admin(owner) });

  // Refused outright (its only part: the balance): released, nothing held, nothing to retry.
  stripe.refusingRefundsOf.add(paid.balanceIntent);
  const refused = await refund(500);
  t.equal(refused.status, 502, refused.raw);
  const [released] = await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: paid.order.id });
  t.equal(released.status, 'failed');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds/${released.id}/retry`, ...admin(owner) })).status, 409);
  stripe.refusingRefundsOf.delete(paid.balanceIntent);

  // Stripe down (500): Stripe may have refunded without our hearing, so nothing is released.
  stripe.failing = true;
  const down = await refund(500);
  stripe.failing = false;
  t.equal(down.status, 502, down.raw);
  const held = (await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: paid.order.id, status: 'pending' })) as Array<{ id: string }>;
  t.equal(held.length, 1, 'pending, not released');
  t.equal((await refund(paid.firstAmount + paid.balanceAmount - 499)).status, 409, 'and still holds its amount against what is left');
  const retried = await app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds/${held[0]!.id}/retry`, ...admin(owner) });
  t.equal(retried.status, 200, retried.raw);
  t.match(retried.body.data.refund, { status: 'succeeded', amount: 500 });
  const keys = stripe.requests.filter((r) => r.path === '/v1/refunds' && r.idempotencyKey?.startsWith(`order-refund:${held[0]!.id}`)).map((r) => r.idempotencyKey);
  t.same([...new Set(keys)], [`order-refund:${held[0]!.id}:${paid.balanceIntent}`], 'the same key: a refund Stripe had made would be found, not made twice');
  t.equal(stripe.refundedOf(paid.balanceIntent), 500);
});

t.test('what an edit collected by hand on a Stripe order goes back by hand: a refund past the PaymentIntent’s amount is split, not refused; concurrent refunds never ask either for more', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Kettle', [
    { price: 1000, stock: 50 },
    { price: 1000, stock: 50 }
  ]);
  const [k0, k1] = product.variants;
  const stripeOrder = async (email: string) => {
    const { session } = await openSession(app, owner, [{ variantId: k0!.id, quantity: 1 }], { email });
    t.equal(session.status, 201, session.raw);
    const intent = [...stripe.intents.keys()].pop()!;
    stripe.setIntentStatus(intent, 'succeeded');
    const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
    t.equal(confirmed.status, 200, confirmed.raw);
    const order = confirmed.body.data.order as { id: string; total: number };
    // One more unit added, its price collected by hand (cash at the counter, say).
    const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId: k1!.id, quantity: 1 }], collect: 'mark_paid' }, ...admin(owner) });
    t.equal(edited.status, 201, edited.raw);
    return { order, intent, byHand: edited.body.data.edit.difference as number };
  };
  const refund = (orderId: string, amount: number) => app.request({ method: 'POST', url: `/admin/orders/${orderId}/refunds`, payload: { amount, reason: 'by hand', notifyCustomer: false }, ...admin(owner) });

  const whole = await stripeOrder('whole@example.com');
  t.equal(whole.byHand, 1000);
  const all = await refund(whole.order.id, whole.order.total + whole.byHand);
  t.equal(all.status, 201, all.raw);
  t.match(all.body.data.refund, {
    status: 'succeeded',
    amount: whole.order.total + whole.byHand,
    payments: [
      { provider: 'manual', paymentIntentId: null, amount: whole.byHand },
      { provider: 'stripe', paymentIntentId: whole.intent, amount: whole.order.total }
    ]
  });
  t.equal(stripe.refundedOf(whole.intent), whole.order.total, 'Stripe gives back what its PaymentIntent took, no more');
  t.match(all.body.data.order, { paymentStatus: 'refunded', amountRefunded: whole.order.total + whole.byHand });

  const raced = await stripeOrder('race@example.com');
  const paid = raced.order.total + raced.byHand;
  const results = await Promise.all(Array.from({ length: 20 }, () => refund(raced.order.id, 300)));
  t.equal(results.filter((r) => r.status >= 500).length, 0, 'no refund refused by Stripe');
  t.equal(results.filter((r) => r.status === 201).length, Math.floor(paid / 300), `${Math.floor(paid / 300)} × 300 fit in ${paid}`);
  const parts = results.filter((r) => r.status === 201).flatMap((r) => r.body.data.refund.payments as Array<{ provider: string; amount: number }>);
  const byHandBack = parts.filter((part) => part.provider === 'manual').reduce((sum, part) => sum + part.amount, 0);
  t.equal(byHandBack, raced.byHand, 'what was collected by hand goes back first (newest), in full, never more');
  t.equal(stripe.refundedOf(raced.intent), Math.floor(paid / 300) * 300 - raced.byHand);
});
