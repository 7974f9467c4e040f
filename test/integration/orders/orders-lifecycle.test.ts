import Stripe from 'stripe';
import t, { type Test } from 'tap';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { connectStripe, startStripeServer, type StripeServer } from '../../helpers/stripe-server.js';

/**
 * Orders after checkout (issue 24), through the HTTP API against the local Stripe server: mark
 * paid, cancel, refunds (partial twice then full; raced), refunds made in Stripe arriving only by
 * webhook (once, replays change nothing), returns, and every step on the timeline.
 */
const signer = new Stripe('sk_test_local');
let counter = 0;

function event(type: string, object: Record<string, unknown>, account: string | undefined) {
  counter += 1;
  return { id: `evt_life_${Date.now()}_${counter}`, object: 'event', type, account, created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, api_version: '2024-06-20' };
}

async function until<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Delivers a signed event and waits for its worker to settle it; returns the stored row. */
async function settle(t: Test, app: TestApp, payload: { id: string }) {
  const body = JSON.stringify(payload);
  const signature = signer.webhooks.generateTestHeaderString({ payload: body, secret: app.ctx.config.stripeWebhookSecret });
  const response = await app.request({ method: 'POST', url: '/internal/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
  t.equal(response.status, 200, `event ${payload.id} acknowledged`);
  return until(`event ${payload.id} settled`, async () => app.ctx.db('stripeEvents').where({ id: payload.id }).whereNot({ status: 'pending' }).first());
}

const stockOf = async (app: TestApp, variantId: string) => (await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity')).inventoryQuantity as number;
const revenueOf = async (app: TestApp, owner: Owner) => (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.stats.revenue30d as number;
const timelineTypes = async (app: TestApp, owner: Owner, orderId: string) => {
  const types: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await app.request({ url: `/admin/orders/${orderId}/timeline?limit=3${cursor ? `&cursor=${cursor}` : ''}`, ...admin(owner) });
    if (page.status !== 200) throw new Error(`timeline: ${page.status} ${page.raw}`);
    types.push(...page.body.data.events.map((e: { type: string }) => e.type));
    cursor = page.body.meta.pagination.nextCursor;
  } while (cursor);
  return types.reverse();
};

/** A paid Stripe order of `quantity` units (the shopper paid, confirm made the order). */
async function stripeOrder(app: TestApp, stripe: StripeServer, owner: Owner, variantId: string, quantity: number, email = 'card@example.com') {
  const { session } = await openSession(app, owner, [{ variantId, quantity }], { email });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${session.raw}`);
  const intentId = [...stripe.intents.keys()].pop()!;
  stripe.setIntentStatus(intentId, 'succeeded');
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.raw}`);
  return { order: confirmed.body.data.order as { id: string; total: number; items: Array<{ id: string }> }, intentId };
}

t.test('a Stripe order: refunded twice in part then in full, through Stripe, with a preview; Stripe-side refunds arrive by webhook once', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks', 'email'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Kettle', [{ price: 4000, stock: 10 }]);
  const variantId = product.variants[0]!.id;
  const { order, intentId } = await stripeOrder(app, stripe, owner, variantId, 3);
  t.equal(order.total, 13500, '3 × 4000 + express shipping 1500');
  const itemId = order.items[0]!.id;
  const refund = (payload: unknown, who: Owner = owner, headers: Record<string, string> = {}) =>
    app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload, headers, ...admin(who) });

  // Marking a Stripe order paid is refused: Stripe reports its payments.
  const markStripe = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) });
  t.equal(markStripe.status, 409);

  // Preview: nothing written.
  const preview = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds?dryRun=true`, payload: { items: [{ orderItemId: itemId, quantity: 1, restock: true }], shipping: 500, reason: 'dented' }, ...admin(owner) });
  t.equal(preview.status, 200, preview.raw);
  t.match(preview.body.data.preview, { amount: 4500, itemsAmount: 4000, shipping: 500, refundable: 13500, refundableAfter: 9000 });
  t.equal(stripe.requests.filter((r) => r.path === '/v1/refunds').length, 0, 'a preview asks nothing of Stripe');
  t.equal((await app.ctx.db('orderRefunds').where({ orderId: order.id })).length, 0);

  // Validation, tenancy and roles.
  t.equal((await refund({ reason: 'x' })).status, 422, 'nothing to refund');
  t.equal((await refund({ amount: -1, reason: 'x' })).status, 422);
  t.equal((await refund({ amount: 100, reason: 'x' }, other)).status, 404, "another store's order");
  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: 100, reason: 'x' }, token: staff.accessToken, storeId: owner.store.id })).status, 403, 'staff may not refund');

  // First partial refund: one item restocked plus shipping; Idempotency-Key replays it.
  const stockBefore = await stockOf(app, variantId);
  const first = await refund({ items: [{ orderItemId: itemId, quantity: 1, restock: true }], shipping: 500, reason: 'dented' }, owner, { 'idempotency-key': 'refund-1' });
  t.equal(first.status, 201, first.raw);
  t.match(first.body.data.refund, { status: 'succeeded', amount: 4500, source: 'admin', stripeRefundId: /^re_/ });
  t.match(first.body.data.order, { paymentStatus: 'partially_refunded', amountRefunded: 4500 });
  const replay = await refund({ items: [{ orderItemId: itemId, quantity: 1, restock: true }], shipping: 500, reason: 'dented' }, owner, { 'idempotency-key': 'refund-1' });
  t.equal(replay.headers['idempotent-replayed'], 'true');
  t.equal(replay.body.data.refund.id, first.body.data.refund.id);
  t.equal(await stockOf(app, variantId), stockBefore + 1, 'the refunded unit is back');
  const stripeCall = stripe.requests.filter((r) => r.path === '/v1/refunds');
  t.equal(stripeCall.length, 1, 'Stripe asked once');
  t.match(stripeCall[0], { stripeAccount: accountId, idempotencyKey: `order-refund:${first.body.data.refund.id}`, body: { payment_intent: intentId, amount: '4500', refund_application_fee: 'true' } });

  // Second partial: an amount.
  const second = await refund({ amount: 2000, reason: 'goodwill', notifyCustomer: false });
  t.equal(second.status, 201, second.raw);
  t.match(second.body.data.order, { paymentStatus: 'partially_refunded', amountRefunded: 6500 });
  const tooMuch = await refund({ amount: 7001, reason: 'too much' });
  t.equal(tooMuch.status, 409);
  t.equal(tooMuch.body.error.code, 'refund_exceeds_payment');
  const twice = await refund({ items: [{ orderItemId: itemId, quantity: 3 }], reason: 'x' });
  t.equal(twice.status, 409, 'one of three units is already refunded');

  // Stripe's own refund event for ours changes nothing; a refund made in Stripe's dashboard appears once.
  const ours = stripe.refunds.get(first.body.data.refund.stripeRefundId)!;
  const echo = await settle(t, app, event('refund.created', { ...ours }, accountId));
  t.equal(echo.status, 'ignored', 'our own refund, already recorded');
  const dashboard = stripe.dashboardRefund(intentId, 1000);
  const created = event('refund.created', { ...dashboard }, accountId);
  t.equal((await settle(t, app, created)).status, 'processed');
  let shown = (await app.request({ url: `/admin/orders/${order.id}`, ...admin(owner) })).body.data.order;
  t.match(shown, { paymentStatus: 'partially_refunded', amountRefunded: 7500 });
  t.equal(shown.refunds.length, 3);
  t.match(shown.refunds[2], { source: 'stripe', amount: 1000, stripeRefundId: dashboard.id });
  // Replays: the same event again, the refund's update, and the charge's refunded total.
  t.equal((await settle(t, app, { ...created, id: `${created.id}_again` })).status, 'ignored');
  t.equal((await settle(t, app, event('refund.updated', { ...dashboard }, accountId))).status, 'ignored');
  await settle(t, app, event('charge.refunded', { id: ours.charge, object: 'charge', payment_intent: intentId, amount: 13500, currency: 'usd', amount_refunded: 7500, refunded: false }, accountId));
  shown = (await app.request({ url: `/admin/orders/${order.id}`, ...admin(owner) })).body.data.order;
  t.match(shown, { paymentStatus: 'partially_refunded', amountRefunded: 7500 }, 'replays change nothing');
  t.equal(shown.refunds.length, 3);
  // A refund from another account is not trusted.
  const foreign = await settle(t, app, event('refund.created', { ...dashboard, id: 're_foreign', amount: 10 }, 'acct_other'));
  t.equal(foreign.status, 'ignored');

  // The rest: refunded in full; revenue and the customer follow.
  const revenueBefore = await revenueOf(app, owner);
  const rest = await refund({ amount: 6000, reason: 'returned everything' });
  t.equal(rest.status, 201, rest.raw);
  t.match(rest.body.data.order, { paymentStatus: 'refunded', amountRefunded: 13500 });
  t.equal(await revenueOf(app, owner), revenueBefore - 6000);
  const customer = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'card@example.com' }).first();
  t.equal(Number(customer.totalSpent), 0, 'the customer spent nothing in the end');
  t.equal((await refund({ amount: 1, reason: 'more' })).body.error.code, 'order_not_refundable');

  const types = await timelineTypes(app, owner, order.id);
  t.same(types.filter((type) => type === 'refunded').length, 4, 'four refunds on the timeline');
  t.ok(types.includes('placed') && types.includes('email_sent'));
  const emails = await until('the refund emails', async () => {
    const rows = await app.ctx.db('emailLog').where({ storeId: owner.store.id, templateKey: 'order_refunded' });
    return rows.length >= 2 ? rows : null;
  });
  t.ok(emails.length >= 2, 'order_refunded emails (notifyCustomer false sends none for the goodwill refund)');
});

t.test('20 concurrent refunds never exceed what was paid', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Lamp', [{ price: 1000, stock: 10 }]);
  const { order, intentId } = await stripeOrder(app, stripe, owner, product.variants[0]!.id, 1);
  t.equal(order.total, 2500);
  const results = await Promise.all(
    Array.from({ length: 20 }, () => app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: 300, reason: 'race', notifyCustomer: false }, ...admin(owner) }))
  );
  const ok = results.filter((r) => r.status === 201).length;
  t.equal(ok, 8, '8 × 300 fit in 2500');
  t.same([...new Set(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.body.error.code}`))], ['409 refund_exceeds_payment']);
  const row = await app.ctx.db('orders').where({ id: order.id }).first();
  t.equal(Number(row.amountRefunded), 2400);
  t.equal(stripe.refundedOf(intentId), 2400, 'Stripe refunded the same');
  t.equal(results.filter((r) => r.status >= 500).length, 0);
});

t.test('a manual order: marked paid, then cancelled (stock back, discount use back, email); a second cancel answers the same', async (t) => {
  const app = await buildApp(t, { workers: ['email'] });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Vase', [{ price: 3000, stock: 5 }]);
  const variantId = product.variants[0]!.id;
  const discount = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'TEN', type: 'percentage', value: 10, usageLimit: 5 }, ...admin(owner) });
  t.equal(discount.status, 201, discount.raw);
  const { session } = await openSession(app, owner, [{ variantId, quantity: 2 }], { email: 'vase@example.com', code: 'TEN' });
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order;
  t.match(order, { paymentStatus: 'pending', discountTotal: 600 });
  t.equal(await stockOf(app, variantId), 3);
  t.equal((await app.ctx.db('discounts').where({ id: discount.body.data.discount.id }).first()).usageCount, 1);

  const staff = await addMember(app, owner.store.id, 'staff');
  const asStaff = { token: staff.accessToken, storeId: owner.store.id };
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: { reference: 'x'.repeat(300) }, ...asStaff })).status, 422);
  const paid = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: { reference: 'BANK-42', note: 'wire received' }, headers: { 'idempotency-key': 'pay-1' }, ...asStaff });
  t.equal(paid.status, 200, 'staff may mark paid');
  t.equal(paid.body.data.order.paymentStatus, 'paid');
  const replayed = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: { reference: 'BANK-42', note: 'wire received' }, headers: { 'idempotency-key': 'pay-1' }, ...asStaff });
  t.equal(replayed.status, 200);
  t.equal(replayed.headers['idempotent-replayed'], 'true');
  const again = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...asStaff });
  t.equal(again.status, 409, 'already paid');

  const cancel = (payload: unknown, who: { token: string; storeId: string } = admin(owner)) => app.request({ method: 'POST', url: `/admin/orders/${order.id}/cancel`, payload, ...who });
  t.equal((await cancel({ reason: 'changed mind' }, asStaff)).status, 403, 'staff may not cancel');
  t.equal((await cancel({})).status, 422, 'a reason is required');
  const revenueBefore = await revenueOf(app, owner);
  const cancelled = await cancel({ reason: 'customer changed their mind' });
  t.equal(cancelled.status, 200, cancelled.raw);
  t.match(cancelled.body.data.order, { status: 'cancelled', paymentStatus: 'refunded', amountRefunded: order.total, cancelReason: 'customer changed their mind' });
  t.equal(await stockOf(app, variantId), 5, 'stock back');
  t.equal((await app.ctx.db('discounts').where({ id: discount.body.data.discount.id }).first()).usageCount, 0, 'the discount use is back');
  t.equal(await revenueOf(app, owner), revenueBefore - order.total);
  const customer = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'vase@example.com' }).first();
  t.match(customer, { ordersCount: 0 });
  t.equal(Number(customer.totalSpent), 0);
  const second = await cancel({ reason: 'again' });
  t.equal(second.status, 200);
  t.same(second.body.data.order, cancelled.body.data.order, 'a second cancel answers the same');
  t.equal(await stockOf(app, variantId), 5, 'nothing restocked twice');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: {}, ...admin(owner) })).status, 409, 'a cancelled order is not fulfilled');

  const tracking = await app.request({ url: `/public/orders/${order.trackingUrl.split('/').pop()}` });
  t.match(tracking.body.data.order, { status: 'cancelled', paymentStatus: 'refunded', amountRefunded: order.total });
  await until('the cancel email', async () => app.ctx.db('emailLog').where({ storeId: owner.store.id, templateKey: 'order_cancelled' }).first());
  const types = await timelineTypes(app, owner, order.id);
  for (const type of ['placed', 'paid', 'refunded', 'cancelled', 'email_sent']) t.ok(types.includes(type), `${type} on the timeline`);
  t.equal(types[0], 'placed');
  const paidEvent = (await app.request({ url: `/admin/orders/${order.id}/timeline?limit=100`, ...admin(owner) })).body.data.events.find((e: any) => e.type === 'paid');
  t.match(paidEvent, { actor: { type: 'user', userId: staff.user.id }, data: { reference: 'BANK-42', note: 'wire received' } });

  // An unpaid manual order cancelled: payment voided, nothing refunded.
  const { session: s2 } = await openSession(app, owner, [{ variantId, quantity: 1 }], { email: 'late@example.com' });
  const unpaid = (await confirm(app, owner, s2.body.data.checkoutSession.id)).body.data.order;
  const voided = await app.request({ method: 'POST', url: `/admin/orders/${unpaid.id}/cancel`, payload: { reason: 'no payment', notifyCustomer: false }, ...admin(owner) });
  t.match(voided.body.data.order, { status: 'cancelled', paymentStatus: 'voided', amountRefunded: 0 });
  t.equal(await stockOf(app, variantId), 5);
});

t.test('a fulfilled order cannot be cancelled; its items are returned, received with restock and refunded; notes', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Chair', [{ price: 5000, stock: 4 }]);
  const variantId = product.variants[0]!.id;
  const { session } = await openSession(app, owner, [{ variantId, quantity: 2 }], { email: 'chair@example.com' });
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order;
  const itemId = order.items[0].id;
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) })).status, 200);
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/returns`, payload: { items: [{ orderItemId: itemId, quantity: 1 }], reason: 'x' }, ...admin(owner) })).status, 409, 'nothing fulfilled to return');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { notifyCustomer: false }, ...admin(owner) })).status, 201);
  const refused = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/cancel`, payload: { reason: 'late' }, ...admin(owner) });
  t.equal(refused.status, 409);
  t.equal(refused.body.error.code, 'order_fulfilled');

  const requested = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/returns`, payload: { items: [{ orderItemId: itemId, quantity: 2 }], reason: 'wobbly' }, ...admin(owner) });
  t.equal(requested.status, 201, requested.raw);
  t.match(requested.body.data.return, { status: 'requested', items: [{ orderItemId: itemId, quantity: 2 }] });
  const returnId = requested.body.data.return.id;
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/returns`, payload: { items: [{ orderItemId: itemId, quantity: 1 }], reason: 'again' }, ...admin(owner) })).status, 409, 'the units are already on a return');
  t.equal((await app.request({ url: `/admin/returns/${returnId}`, ...admin(other) })).status, 404, "another store's return");
  const stockBefore = await stockOf(app, variantId);
  const received = await app.request({ method: 'POST', url: `/admin/returns/${returnId}/receive`, payload: { restock: true, refund: true, notifyCustomer: false }, ...admin(owner) });
  t.equal(received.status, 200, received.raw);
  t.match(received.body.data.return, { status: 'closed', restocked: true, refundId: /./ });
  t.match(received.body.data.order, { paymentStatus: 'partially_refunded', amountRefunded: 10000 });
  t.equal(await stockOf(app, variantId), stockBefore + 2, 'restocked once (the refund does not restock again)');
  t.equal((await app.request({ method: 'POST', url: `/admin/returns/${returnId}/receive`, payload: {}, ...admin(owner) })).status, 409);

  // Notes: public ones on the tracking page; only their author edits or deletes them.
  const note = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/notes`, payload: { body: 'Refund on its way', isPublic: true }, ...admin(owner) });
  t.equal(note.status, 201, note.raw);
  const privateNote = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/notes`, payload: { body: 'called the buyer' }, ...admin(owner) });
  const admin2 = await addMember(app, owner.store.id, 'admin');
  const noteUrl = `/admin/orders/${order.id}/notes/${note.body.data.event.id}`;
  t.equal((await app.request({ method: 'PATCH', url: noteUrl, payload: { body: 'mine now' }, token: admin2.accessToken, storeId: owner.store.id })).status, 403);
  const edited = await app.request({ method: 'PATCH', url: noteUrl, payload: { body: 'Your refund is on its way' }, ...admin(owner) });
  t.equal(edited.status, 200);
  t.match(edited.body.data.event, { type: 'note', body: 'Your refund is on its way', isPublic: true, actor: { type: 'user', userId: owner.user.id } });
  const tracking = await app.request({ url: `/public/orders/${order.trackingUrl.split('/').pop()}` });
  t.same(tracking.body.data.order.notes.map((n: { body: string }) => n.body), ['Your refund is on its way'], 'only the public note');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/orders/${order.id}/notes/${privateNote.body.data.event.id}`, ...admin(owner) })).status, 204);
  t.equal((await app.request({ url: `/admin/orders/${order.id}/timeline`, ...admin(other) })).status, 404);

  const types = await timelineTypes(app, owner, order.id);
  for (const type of ['placed', 'paid', 'fulfilled', 'return_requested', 'return_received', 'refunded', 'return_closed', 'note']) t.ok(types.includes(type), `${type} on the timeline`);
  t.equal(types.filter((type) => type === 'note').length, 1, 'the deleted note is gone');
});

t.test('cancelling an authorised Stripe order voids its PaymentIntent', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Rug', [{ price: 2000, stock: 3 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
  const intentId = [...stripe.intents.keys()].pop()!;
  stripe.setIntentStatus(intentId, 'requires_capture');
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order;
  t.equal(order.paymentStatus, 'authorized');
  const cancelled = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/cancel`, payload: { reason: 'out of stock' }, ...admin(owner) });
  t.equal(cancelled.status, 200, cancelled.raw);
  t.match(cancelled.body.data.order, { status: 'cancelled', paymentStatus: 'voided' });
  t.equal(stripe.intents.get(intentId)!.status, 'canceled');
  t.match(stripe.requests.find((r) => r.path.endsWith('/cancel')), { stripeAccount: accountId, idempotencyKey: `order-cancel:${order.id}:void` });
  t.equal(await stockOf(app, product.variants[0]!.id), 3);
});
