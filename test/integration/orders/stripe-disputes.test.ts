import t from 'tap';
import { buildApp, signupOwner, type Owner, type Teardownable, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';
import { splitPaidShop } from '../../helpers/split-payments.js';
import { connectStripe, startStripeServer, type StripeServer } from '../../helpers/stripe-server.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';

/**
 * Disputes (docs/payments.md, Disputes): Stripe's charge.dispute.* events recorded on the order
 * they are about, at the status of the latest event; refunds refused while a chargeback is open;
 * a lost dispute's amount no longer refundable; the operator's issue raised and resolved.
 */

interface Shop {
  stripe: StripeServer;
  app: TestApp;
  owner: Owner;
  accountId: string;
  variantId: string;
}

async function stripeShop(t: Teardownable, env: Record<string, string> = {}): Promise<Shop> {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0', ...env } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Kettle', [{ price: 20000, stock: 50 }]);
  return { stripe, app, owner, accountId, variantId: product.variants[0]!.id };
}

/** A Stripe order paid at checkout: its id, total and PaymentIntent. */
async function paidOrder(shop: Shop, email: string) {
  const { session } = await openSession(shop.app, shop.owner, [{ variantId: shop.variantId, quantity: 1 }], { email });
  const intentId = [...shop.stripe.intents.keys()].pop()!;
  shop.stripe.setIntentStatus(intentId, 'succeeded');
  const confirmed = await confirm(shop.app, shop.owner, session.body.data.checkoutSession.id);
  const order = confirmed.body.data.order as { id: string; number: number; total: number; currency: string };
  return { ...order, intentId };
}

let disputes = 0;
/** A dispute as Stripe sends it in a charge.dispute.* event. */
function dispute(intentId: string, fields: { id?: string; amount: number; status: string; currency?: string; reason?: string; dueBy?: number }) {
  disputes += 1;
  return {
    id: fields.id ?? `dp_test_${disputes}`,
    object: 'dispute',
    amount: fields.amount,
    currency: fields.currency ?? 'usd',
    charge: `ch_for_${intentId}`,
    payment_intent: intentId,
    reason: fields.reason ?? 'fraudulent',
    status: fields.status,
    is_charge_refundable: fields.status.startsWith('warning_'),
    evidence_details: { due_by: fields.dueBy ?? null, has_evidence: false, past_due: false, submission_count: 0 },
    created: Math.floor(Date.now() / 1000)
  };
}

/** Delivers a dispute event (created at `created` seconds, default now) and waits until it is handled: its stripe_events row. */
async function send(shop: Shop, type: string, object: Record<string, unknown>, options: { created?: number; account?: string | null } = {}) {
  const sent = event(type, object, options.account === null ? undefined : (options.account ?? shop.accountId));
  if (options.created !== undefined) sent.created = options.created;
  const answer = await deliver(shop.app, sent);
  if (answer.status !== 200) throw new Error(`delivery: ${answer.status} ${answer.raw}`);
  return processed(shop.app, sent.id);
}

const disputesOf = async (shop: Shop, orderId: string) => shop.app.request({ method: 'GET', url: `/admin/orders/${orderId}/disputes`, ...admin(shop.owner) });
const timelineTypes = async (shop: Shop, orderId: string) =>
  ((await shop.app.request({ method: 'GET', url: `/admin/orders/${orderId}/timeline?limit=100`, ...admin(shop.owner) })).body.data.events as Array<{ type: string; data: Record<string, unknown> }>)
    .filter((e) => e.type.startsWith('dispute_'))
    .reverse();
const openIssues = async (shop: Shop) =>
  ((await shop.app.request({ method: 'GET', url: '/admin/store/issues', ...admin(shop.owner) })).body.data.issues as Array<{ kind: string; subject: string; severity: string; title: string; detail: string; resolvedAt: string | null }>).filter(
    (issue) => issue.kind === 'payment_disputed' && !issue.resolvedAt
  );
const refund = (shop: Shop, orderId: string, amount: number, dryRun = false) =>
  shop.app.request({ method: 'POST', url: `/admin/orders/${orderId}/refunds${dryRun ? '?dryRun=true' : ''}`, payload: { amount, reason: 'asked', notifyCustomer: false }, ...admin(shop.owner) });

t.test('a chargeback: recorded, refunds refused while open, lost keeps its amount out of refunds, the issue raised then resolved', async (t) => {
  const shop = await stripeShop(t);
  const order = await paidOrder(shop, 'chargeback@example.com');
  const now = Math.floor(Date.now() / 1000);
  const dueBy = now + 7 * 86_400;
  const opened = dispute(order.intentId, { id: 'dp_chargeback', amount: 5000, status: 'needs_response', dueBy });

  const created = await send(shop, 'charge.dispute.created', opened, { created: now });
  t.equal(created.status, 'processed', String(created.reason));
  const listed = await disputesOf(shop, order.id);
  t.equal(listed.status, 200, listed.raw);
  t.match(listed.body.data.disputes, [{ stripeDisputeId: 'dp_chargeback', amount: 5000, currency: 'USD', reason: 'fraudulent', status: 'needs_response', closedAt: null }]);
  t.equal(new Date(listed.body.data.disputes[0].evidenceDueBy).getTime(), dueBy * 1000);
  t.match(await timelineTypes(shop, order.id), [{ type: 'dispute_opened', data: { stripeDisputeId: 'dp_chargeback', amount: 5000, status: 'needs_response' } }]);
  const [issue, ...more] = await openIssues(shop);
  t.equal(more.length, 0);
  t.match(issue, { subject: 'dp_chargeback', severity: 'critical', title: `The payment of order #${order.number} is disputed` });
  t.match(issue!.detail, /50\.00 USD, reason fraudulent.*refunds of this payment are refused/);

  // While it is open, a refund (and its preview) is refused before Stripe is asked.
  const refunds = () => shop.stripe.requests.filter((r) => r.path === '/v1/refunds').length;
  const before = refunds();
  const refused = await refund(shop, order.id, 1000);
  t.equal(refused.status, 409, refused.raw);
  t.equal(refused.body.error.code, 'payment_disputed');
  t.equal((await refund(shop, order.id, 1000, true)).body.error.code, 'payment_disputed', 'the preview says so too');
  t.equal(refunds(), before, 'Stripe was not asked');
  // A cancel would refund: refused the same way, the order left as it was.
  const cancelUrl = `/admin/orders/${order.id}/cancel`;
  const cancel = await shop.app.request({ method: 'POST', url: cancelUrl, payload: { reason: 'fraud', notifyCustomer: false }, ...admin(shop.owner) });
  t.equal(cancel.status, 409, cancel.raw);
  t.equal(cancel.body.error.code, 'payment_disputed');
  t.equal((await shop.app.ctx.db('orders').where({ storeId: shop.owner.store.id, id: order.id }).first()).status, 'open', 'not cancelled');
  t.equal(refunds(), before, 'Stripe was still not asked');

  // An older event delivered late (the inquiry before it) changes nothing; the same status again says so.
  const late = await send(shop, 'charge.dispute.updated', { ...opened, status: 'warning_needs_response' }, { created: now - 60 });
  t.equal(late.status, 'ignored');
  t.match(late.reason, /older event/);
  const withdrawn = await send(shop, 'charge.dispute.funds_withdrawn', opened, { created: now + 1 });
  t.equal(withdrawn.status, 'processed');
  t.equal((await disputesOf(shop, order.id)).body.data.disputes[0].status, 'needs_response');
  t.equal((await timelineTypes(shop, order.id)).length, 1, 'no timeline entry for an unchanged status');

  // Evidence submitted, then lost.
  const figures = async () => {
    const stats = (await shop.app.request({ url: '/admin/store', ...admin(shop.owner) })).body.data.stats;
    const row = await shop.app.ctx.db('orders').where({ storeId: shop.owner.store.id, id: order.id }).first('customerId');
    const customer = (await shop.app.request({ url: `/admin/customers/${row.customerId}`, ...admin(shop.owner) })).body.data.customer;
    return { revenue: stats.revenue30d as number, spent: customer.totalSpent as number };
  };
  const open = await figures();
  t.equal(open.spent, order.total, 'an open dispute leaves the figures alone');
  await send(shop, 'charge.dispute.updated', { ...opened, status: 'under_review' }, { created: now + 2 });
  const lost = await send(shop, 'charge.dispute.closed', { ...opened, status: 'lost' }, { created: now + 3 });
  t.equal(lost.status, 'processed');
  const closed = (await disputesOf(shop, order.id)).body.data.disputes;
  t.match(closed, [{ status: 'lost' }]);
  t.ok(closed[0].closedAt, 'closedAt is set');
  t.same(
    (await timelineTypes(shop, order.id)).map((e) => `${e.type}:${e.data.status}`),
    ['dispute_opened:needs_response', 'dispute_updated:under_review', 'dispute_closed:lost']
  );
  t.same(await openIssues(shop), [], 'the issue is resolved');
  t.same(await figures(), { revenue: open.revenue - 5000, spent: open.spent - 5000 }, "lost: revenue and the customer's spend are net of what the bank took back");

  // The bank kept 5000: what is left to refund is the total less that.
  const left = order.total - 5000;
  const tooMuch = await refund(shop, order.id, left + 1);
  t.equal(tooMuch.status, 409);
  t.equal(tooMuch.body.error.code, 'refund_exceeds_payment');
  const rest = await refund(shop, order.id, left);
  t.equal(rest.status, 201, rest.raw);
  t.equal(shop.stripe.refundedOf(order.intentId), left);
  t.same(await figures(), { revenue: open.revenue - order.total, spent: 0 }, 'refunded the rest: nothing of it counts, never below nothing');
  // Cancelled afterwards: the figures stay at nothing (not below).
  t.equal((await shop.app.request({ method: 'POST', url: `/admin/orders/${order.id}/cancel`, payload: { reason: 'chargeback', notifyCustomer: false }, ...admin(shop.owner) })).status, 200);
  t.same(await figures(), { revenue: open.revenue - order.total, spent: 0 });
});

t.test('an inquiry leaves refunds open; a won dispute gives them back; untrusted events change nothing; another store answers 404', async (t) => {
  const shop = await stripeShop(t);
  const order = await paidOrder(shop, 'inquiry@example.com');
  const now = Math.floor(Date.now() / 1000);
  const inquiry = dispute(order.intentId, { id: 'dp_inquiry', amount: order.total, status: 'warning_needs_response', reason: 'product_not_received' });
  t.equal((await send(shop, 'charge.dispute.created', inquiry, { created: now })).status, 'processed');
  t.match(await openIssues(shop), [{ subject: 'dp_inquiry', severity: 'warning', title: `A customer's bank asks about order #${order.number}` }]);
  t.equal((await refund(shop, order.id, 100, true)).status, 200, 'an inquiry takes no money and leaves the charge refundable');

  // It escalates to a chargeback (the same dispute), which is then won.
  await send(shop, 'charge.dispute.updated', { ...inquiry, status: 'needs_response' }, { created: now + 1 });
  t.equal((await refund(shop, order.id, 100)).body.error.code, 'payment_disputed');
  await send(shop, 'charge.dispute.closed', { ...inquiry, status: 'won' }, { created: now + 2 });
  t.same(
    (await timelineTypes(shop, order.id)).map((e) => `${e.type}:${e.data.status}`),
    ['dispute_opened:warning_needs_response', 'dispute_updated:needs_response', 'dispute_closed:won']
  );
  t.same(await openIssues(shop), []);
  const whole = await refund(shop, order.id, order.total);
  t.equal(whole.status, 201, 'a won dispute leaves the whole payment refundable');

  // Events that cannot be trusted: another account, the platform account, more than was paid, another currency, no PaymentIntent.
  const second = await paidOrder(shop, 'trust@example.com');
  const forged = dispute(second.intentId, { amount: 1000, status: 'needs_response' });
  t.match((await send(shop, 'charge.dispute.created', forged, { account: 'acct_someone_else' })).reason, /not the store's connected account/);
  t.match((await send(shop, 'charge.dispute.created', forged, { account: null })).reason, /platform account/);
  t.match((await send(shop, 'charge.dispute.created', { ...forged, amount: second.total + 1 })).reason, /exceeds/);
  t.match((await send(shop, 'charge.dispute.created', { ...forged, currency: 'eur' })).reason, /currency/);
  t.match((await send(shop, 'charge.dispute.created', { ...forged, payment_intent: null })).reason, /no PaymentIntent/);
  t.match((await send(shop, 'charge.dispute.created', { ...forged, status: 'escalated' })).reason, /malformed dispute/);
  t.same((await disputesOf(shop, second.id)).body.data.disputes, [], 'none recorded');

  // Tenant isolation: another store's owner gets 404 for this order's disputes.
  const other = await signupOwner(shop.app);
  t.equal((await shop.app.request({ method: 'GET', url: `/admin/orders/${second.id}/disputes`, ...admin(other) })).status, 404);
});

t.test('events of one dispute delivered at once, in any order: it ends at the latest event, with one opening', async (t) => {
  const shop = await stripeShop(t);
  const order = await paidOrder(shop, 'race@example.com');
  const now = Math.floor(Date.now() / 1000);
  const base = dispute(order.intentId, { id: 'dp_race', amount: 3000, status: 'needs_response' });
  const steps: Array<[string, string]> = [
    ['charge.dispute.created', 'needs_response'],
    ['charge.dispute.funds_withdrawn', 'needs_response'],
    ['charge.dispute.updated', 'under_review'],
    ['charge.dispute.closed', 'lost']
  ];
  const events = steps.map(([type, status], i) => {
    const sent = event(type, { ...base, status }, shop.accountId);
    sent.created = now + i;
    return sent;
  });
  // Latest first, then the rest all at once.
  const answers = await Promise.all([...events].reverse().map((sent) => deliver(shop.app, sent)));
  t.same(answers.map((a) => a.status), [200, 200, 200, 200]);
  for (const sent of events) await processed(shop.app, sent.id);
  t.match((await disputesOf(shop, order.id)).body.data.disputes, [{ status: 'lost', amount: 3000 }]);
  const types = (await timelineTypes(shop, order.id)).map((e) => e.type);
  t.equal(types.filter((type) => type === 'dispute_opened').length, 1, 'opened once');
  t.equal(types.at(-1), 'dispute_closed');
  t.equal((await shop.app.ctx.db('orderDisputes').where({ storeId: shop.owner.store.id })).length, 1, 'one row');
  t.same(await openIssues(shop), [], 'no issue left open');
});

t.test('a lost dispute of a balance paid by link: refunds go to the payments that still hold money, never to the charged-back one', async (t) => {
  const { stripe, app, owner, accountId, paid } = await splitPaidShop(t, { title: 'Lamp', email: 'split@example.com' });
  const shop: Shop = { stripe, app, owner, accountId, variantId: '' };
  const now = Math.floor(Date.now() / 1000);
  const chargeback = dispute(paid.balanceIntent, { id: 'dp_balance', amount: paid.balanceAmount, status: 'needs_response' });
  t.equal((await send(shop, 'charge.dispute.created', chargeback, { created: now })).status, 'processed');
  t.equal((await send(shop, 'charge.dispute.closed', { ...chargeback, status: 'lost' }, { created: now + 1 })).status, 'processed');
  t.match((await disputesOf(shop, paid.order.id)).body.data.disputes, [{ stripeDisputeId: 'dp_balance', status: 'lost', amount: paid.balanceAmount }]);

  const over = await refund(shop, paid.order.id, paid.firstAmount + 1);
  t.equal(over.status, 409, 'only the first payment holds money now');
  const all = await refund(shop, paid.order.id, paid.firstAmount);
  t.equal(all.status, 201, all.raw);
  t.same(
    (all.body.data.refund.payments as Array<{ paymentIntentId: string; amount: number }>).map((part) => [part.paymentIntentId, part.amount]),
    [[paid.firstIntent, paid.firstAmount]],
    'the charged-back balance is not asked'
  );
  t.equal(stripe.refundedOf(paid.balanceIntent), 0);
  t.equal(stripe.refundedOf(paid.firstIntent), paid.firstAmount);
});

t.test('webhook topics dispute.created and dispute.updated carry the dispute as the admin API lists it, once per change', async (t) => {
  const shop = await stripeShop(t, { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' });
  const receiver = await startReceiver(t);
  const hook = await shop.app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: receiver.url, topics: ['dispute.created', 'dispute.updated'] }, ...admin(shop.owner) });
  t.equal(hook.status, 201, hook.raw);
  const order = await paidOrder(shop, 'hooked@example.com');
  const now = Math.floor(Date.now() / 1000);
  const opened = dispute(order.intentId, { id: 'dp_hooked', amount: 2500, status: 'needs_response', dueBy: now + 86_400 });
  await send(shop, 'charge.dispute.created', opened, { created: now });
  await send(shop, 'charge.dispute.funds_withdrawn', opened, { created: now + 1 });
  await send(shop, 'charge.dispute.closed', { ...opened, status: 'won' }, { created: now + 2 });
  const bodies = (topic: string) => receiver.received.filter((r) => r.headers['shopwright-topic'] === topic).map((r) => JSON.parse(r.body));
  await waitFor('dispute.created and dispute.updated', () => bodies('dispute.created').length >= 1 && bodies('dispute.updated').length >= 1);
  const [created] = bodies('dispute.created');
  t.match(created, { topic: 'dispute.created', storeId: shop.owner.store.id, data: { orderId: order.id, stripeDisputeId: 'dp_hooked', status: 'needs_response', amount: 2500 } });
  const [updated] = bodies('dispute.updated');
  const listed = (await disputesOf(shop, order.id)).body.data.disputes;
  t.same(updated.data, JSON.parse(JSON.stringify(listed[0])), 'data is the dispute as GET …/disputes lists it');
  t.equal(updated.data.status, 'won');
  t.ok(updated.version > created.version, 'versions grow');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(bodies('dispute.created').length + bodies('dispute.updated').length, 2, 'the unchanged funds_withdrawn sent nothing');
});
