import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { sealAudit } from '../../helpers/audit.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps } from '../../helpers/order-ops.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

/**
 * An edit's balance collected another way than its link (docs/orders-by-hand.md): recorded by hand,
 * open or voided; what is still owed becomes refundable (by hand); the link then answers paid and a
 * payment by it is refunded in full; a mark racing the link's payment has one winner.
 */

const tokenOf = (url: string) => url.split('/public/invoices/')[1]!;

async function shop(t: Parameters<typeof startStripeServer>[0]) {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app, { storeName: 'Counter Shop' });
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Bowl', [
    { price: 1000, stock: 100 },
    { price: 1200, stock: 100 }
  ]);
  const [base, extra] = product.variants;
  const ops = orderOps(app, owner);
  // Manual orders, marked paid, made before the store connects Stripe (the links pay through it).
  const orders = [];
  for (let i = 0; i < 9; i += 1) orders.push(await ops.paidOrder([{ variantId: base!.id, quantity: 1 }], `counter${i}@example.com`));
  const accountId = await connectStripe(app, stripe, owner);
  const post = (url: string, payload: unknown = {}, headers: Record<string, string> = {}) => app.request({ method: 'POST', url, payload, headers, ...admin(owner) });
  const owe = async (orderId: string, quantity = 1) => {
    const edited = await post(`/admin/orders/${orderId}/edits`, { add: [{ variantId: extra!.id, quantity }], collect: 'invoice', notifyCustomer: false });
    if (edited.status !== 201) throw new Error(`edit: ${edited.status} ${edited.raw}`);
    return { invoiceId: edited.body.data.edit.invoice.id as string, token: tokenOf(edited.body.data.edit.invoice.url), owed: edited.body.data.edit.difference as number };
  };
  const markUrl = (orderId: string, invoiceId: string) => `/admin/orders/${orderId}/balance-invoices/${invoiceId}/mark-paid`;
  const refundable = async (orderId: string) => (await post(`/admin/orders/${orderId}/refunds?dryRun=true`, { amount: 1, reason: 'check' })).body.data.preview.refundable as number;
  const invoice = async (id: string) => app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, id }).first();
  const order = async (id: string) => app.ctx.db('orders').where({ storeId: owner.store.id, id }).first();
  return { stripe, app, owner, accountId, orders, extra: extra!, post, owe, markUrl, refundable, invoice, order };
}

t.test('an open link marked paid by hand: refundable, its page says paid, a payment by it is refunded, a repeat changes nothing', async (t) => {
  const s = await shop(t);
  const [first, other] = s.orders;
  const paidBefore = await s.refundable(first!.id);
  const balance = await s.owe(first!.id);
  t.equal(await s.refundable(first!.id), paidBefore, 'open: not yet refundable');
  // A payment started before the mark (the customer's tab is open).
  const started = await s.app.request({ method: 'POST', url: `/public/invoices/${balance.token}/pay` });
  t.equal(started.status, 200, started.raw);

  t.equal((await s.post(s.markUrl(other!.id, balance.invoiceId))).status, 404, "another order's id with this invoice");
  const staff = await addMember(s.app, s.owner.store.id, 'staff');
  const marked = await s.app.request({
    method: 'POST',
    url: s.markUrl(first!.id, balance.invoiceId),
    payload: { reference: 'cash at the counter', note: 'paid when collecting' },
    headers: { 'idempotency-key': 'mark-1' },
    token: staff.accessToken,
    storeId: s.owner.store.id
  });
  t.equal(marked.status, 200, marked.raw);
  t.match(marked.body.data, { invoice: { id: balance.invoiceId, status: 'paid', paymentIntentId: null, amount: balance.owed }, order: { id: first!.id } });
  t.ok(marked.body.data.invoice.paidAt);
  t.equal(await s.refundable(first!.id), paidBefore + balance.owed, 'what was collected by hand is refundable');
  t.equal(Number((await s.order(first!.id)).collectedByHand), balance.owed);

  // Again (another key): the paid invoice, nothing counted twice.
  const again = await s.post(s.markUrl(first!.id, balance.invoiceId), { reference: 'again' });
  t.equal(again.status, 200, again.raw);
  t.equal(Number((await s.order(first!.id)).collectedByHand), balance.owed, 'counted once');
  const timeline = (await s.app.request({ url: `/admin/orders/${first!.id}/timeline?limit=50`, ...admin(s.owner) })).body.data.events as Array<{ type: string; data: Record<string, unknown> }>;
  const paid = timeline.filter((e) => e.type === 'paid' && e.data.balanceInvoiceId === balance.invoiceId);
  t.equal(paid.length, 1, 'one paid entry');
  t.match(paid[0]!.data, { byHand: true, amount: balance.owed, reference: 'cash at the counter', note: 'paid when collecting' });
  await sealAudit(s.app, s.owner.store.id);
  t.equal((await s.app.ctx.db('auditLog').where({ storeId: s.owner.store.id, action: 'order.balance_marked_paid', resourceId: first!.id })).length, 1, 'audited once');

  // The link: its page says paid, paying is refused, the payment already started is refunded in full.
  t.equal((await s.app.request({ url: `/public/invoices/${balance.token}` })).body.data.invoice.status, 'paid');
  t.equal((await s.app.request({ method: 'POST', url: `/public/invoices/${balance.token}/pay` })).status, 409);
  const late = s.stripe.setIntentStatus(started.body.data.payment.paymentIntentId, 'succeeded');
  const lateEvent = event('payment_intent.succeeded', { ...late }, s.accountId);
  await deliver(s.app, lateEvent);
  await processed(s.app, lateEvent.id);
  t.equal(s.stripe.refundedOf(late.id), balance.owed, 'the payment by the link is refunded in full');
  t.match(await s.invoice(balance.invoiceId), { status: 'paid', paymentIntentId: null });

  // The whole order refunded: what was paid and what was collected by hand.
  const whole = await s.post(`/admin/orders/${first!.id}/refunds`, { amount: paidBefore + balance.owed, reason: 'returned', notifyCustomer: false });
  t.equal(whole.status, 201, whole.raw);
  t.equal(whole.body.data.order.paymentStatus, 'refunded');
});

t.test('a voided balance collected after all; one partly taken back by an edit collects what is left; refused when paid by its link, nothing is owed, or the order is cancelled', async (t) => {
  const s = await shop(t);
  const [voided, partly, byLink, cancelled] = s.orders;

  // Voided, then marked paid: the voided amount is no longer "never collected".
  const v = await s.owe(voided!.id);
  const paidBefore = await s.refundable(voided!.id);
  t.equal((await s.post(`/admin/orders/${voided!.id}/balance-invoices/${v.invoiceId}/void`)).status, 200);
  const marked = await s.post(s.markUrl(voided!.id, v.invoiceId), null);
  t.equal(marked.status, 200, marked.raw);
  t.equal(marked.body.data.invoice.status, 'paid');
  t.equal(await s.refundable(voided!.id), paidBefore + v.owed);

  // Two units owed and voided; an edit takes one back; marking paid collects the other only.
  const p = await s.owe(partly!.id, 2);
  const partlyPaid = await s.refundable(partly!.id);
  t.equal((await s.post(`/admin/orders/${partly!.id}/balance-invoices/${p.invoiceId}/void`)).status, 200);
  const lineOf = async () =>
    ((await s.app.request({ url: `/admin/orders/${partly!.id}`, ...admin(s.owner) })).body.data.order.items as Array<{ id: string; variantId: string; quantity: number }>).find((line) => line.variantId === s.extra.id)!;
  const lowered = await s.post(`/admin/orders/${partly!.id}/edits`, { change: [{ orderItemId: (await lineOf()).id, quantity: 1 }], notifyCustomer: false });
  t.equal(lowered.status, 201, lowered.raw);
  t.equal(lowered.body.data.edit.refund, null, 'taken back of the voided balance, nothing refunded');
  const half = p.owed / 2;
  t.equal(Number((await s.invoice(p.invoiceId)).takenBack), half);
  t.equal((await s.post(s.markUrl(partly!.id, p.invoiceId))).status, 200);
  t.equal(Number((await s.order(partly!.id)).collectedByHand), half, 'only what was still owed');
  t.equal(await s.refundable(partly!.id), partlyPaid + half);
  const listed = await s.app.request({ url: `/admin/orders/${partly!.id}/balance-invoices`, ...admin(s.owner) });
  t.equal(listed.status, 200, listed.raw);
  t.match(listed.body.data.invoices, [{ id: p.invoiceId, status: 'paid', paymentIntentId: null, amount: p.owed, takenBack: half }]);
  const stranger = await signupOwner(s.app);
  t.equal((await s.app.request({ url: `/admin/orders/${partly!.id}/balance-invoices`, ...admin(stranger) })).status, 404, "another store's order");
  // The other unit taken off too: it was collected by hand, so it is refunded (by hand).
  const removed = await s.post(`/admin/orders/${partly!.id}/edits`, { remove: [(await lineOf()).id], notifyCustomer: false });
  t.equal(removed.status, 201, removed.raw);
  t.match(removed.body.data.edit.refund, { status: 'succeeded', amount: half });

  // Paid by its link: 409. Nothing owed any more: 409. A cancelled order: 409.
  const l = await s.owe(byLink!.id);
  const pay = await s.app.request({ method: 'POST', url: `/public/invoices/${l.token}/pay` });
  const intent = s.stripe.setIntentStatus(pay.body.data.payment.paymentIntentId, 'succeeded');
  const paidEvent = event('payment_intent.succeeded', { ...intent }, s.accountId);
  await deliver(s.app, paidEvent);
  await processed(s.app, paidEvent.id);
  const refusedLink = await s.post(s.markUrl(byLink!.id, l.invoiceId));
  t.equal(refusedLink.status, 409);
  t.match(refusedLink.body.error.message, /paid through its link/);

  const gone = await s.owe(voided!.id);
  t.equal((await s.post(`/admin/orders/${voided!.id}/balance-invoices/${gone.invoiceId}/void`)).status, 200);
  const lines = (await s.app.request({ url: `/admin/orders/${voided!.id}`, ...admin(s.owner) })).body.data.order.items as Array<{ id: string; variantId: string; quantity: number }>;
  const added = lines.filter((line) => line.variantId === s.extra.id).at(-1)!;
  const back = await s.post(`/admin/orders/${voided!.id}/edits`, { ...(added.quantity > 1 ? { change: [{ orderItemId: added.id, quantity: added.quantity - 1 }] } : { remove: [added.id] }), notifyCustomer: false });
  t.equal(back.status, 201, back.raw);
  const nothing = await s.post(s.markUrl(voided!.id, gone.invoiceId));
  t.equal(nothing.status, 409);
  t.match(nothing.body.error.message, /Nothing of this balance is owed/);

  const c = await s.owe(cancelled!.id);
  t.equal((await s.post(`/admin/orders/${cancelled!.id}/cancel`, { reason: 'test', notifyCustomer: false })).status, 200);
  const refusedCancelled = await s.post(s.markUrl(cancelled!.id, c.invoiceId));
  t.equal(refusedCancelled.status, 409);
  t.match(refusedCancelled.body.error.message, /cancelled/);
});

t.test('a mark racing the link’s payment has one winner; ten marks at once count the balance once', async (t) => {
  const s = await shop(t);
  for (const [round, raced] of s.orders.slice(0, 4).entries()) {
    const b = await s.owe(raced.id);
    const pay = await s.app.request({ method: 'POST', url: `/public/invoices/${b.token}/pay` });
    const intent = s.stripe.setIntentStatus(pay.body.data.payment.paymentIntentId, 'succeeded');
    const paidEvent = event('payment_intent.succeeded', { ...intent }, s.accountId);
    const [, mark] = await Promise.all([deliver(s.app, paidEvent), s.post(s.markUrl(raced.id, b.invoiceId), { reference: `race ${round}` })]);
    await processed(s.app, paidEvent.id);
    const row = await s.invoice(b.invoiceId);
    if (mark.status === 200) {
      t.equal(row.paymentIntentId, null, `round ${round}: the mark won`);
      t.equal(s.stripe.refundedOf(intent.id), b.owed, 'the payment by the link is refunded in full');
      t.equal(Number((await s.order(raced.id)).collectedByHand), b.owed);
    } else {
      t.equal(mark.status, 409, mark.raw);
      t.equal(row.paymentIntentId, intent.id, `round ${round}: the payment won`);
      t.equal(s.stripe.refundedOf(intent.id), 0, 'the payment is kept');
      t.equal(Number((await s.order(raced.id)).collectedByHand), 0);
    }
  }

  const target = s.orders[4]!;
  const b = await s.owe(target.id);
  const marks = await Promise.all(Array.from({ length: 10 }, (_, i) => s.post(s.markUrl(target.id, b.invoiceId), { reference: `desk ${i}` })));
  t.same(
    marks.map((m) => m.status),
    Array(10).fill(200)
  );
  t.equal(Number((await s.order(target.id)).collectedByHand), b.owed, 'counted once');
  const timeline = (await s.app.request({ url: `/admin/orders/${target.id}/timeline?limit=50`, ...admin(s.owner) })).body.data.events as Array<{ type: string; data: Record<string, unknown> }>;
  t.equal(timeline.filter((e) => e.type === 'paid' && e.data.balanceInvoiceId === b.invoiceId).length, 1, 'one paid entry');
});

t.test('on a Stripe order, a balance marked paid by hand goes back by hand: a whole refund is split between it and the PaymentIntent', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Pot', [
    { price: 1000, stock: 50 },
    { price: 1500, stock: 50 }
  ]);
  const [p0, p1] = product.variants;
  const { session } = await openSession(app, owner, [{ variantId: p0!.id, quantity: 1 }], { email: 'pot@example.com' });
  const intent = [...stripe.intents.keys()].pop()!;
  stripe.setIntentStatus(intent, 'succeeded');
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order as { id: string; total: number };
  const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId: p1!.id, quantity: 1 }], collect: 'invoice', notifyCustomer: false }, ...admin(owner) });
  t.equal(edited.status, 201, edited.raw);
  const invoiceId = edited.body.data.edit.invoice.id as string;
  const owed = edited.body.data.edit.difference as number;
  const marked = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/balance-invoices/${invoiceId}/mark-paid`, payload: { reference: 'bank transfer' }, ...admin(owner) });
  t.equal(marked.status, 200, marked.raw);
  const all = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: order.total + owed, reason: 'all back', notifyCustomer: false }, ...admin(owner) });
  t.equal(all.status, 201, all.raw);
  t.match(all.body.data.refund.payments, [
    { provider: 'manual', paymentIntentId: null, amount: owed },
    { provider: 'stripe', paymentIntentId: intent, amount: order.total }
  ]);
  t.equal(stripe.refundedOf(intent), order.total, 'Stripe gives back only what its PaymentIntent took');
});
