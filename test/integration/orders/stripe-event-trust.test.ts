import Stripe from 'stripe';
import t, { type Test } from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, setupShop, sellable } from '../../helpers/checkout.js';
import { connectStripe, startStripeServer, type StripeServer } from '../../helpers/stripe-server.js';

/**
 * Payment events are untrusted input: a signed event acts only for the store's own connected
 * account and the checkout's amount and currency (else it is kept as ignored, with the reason, and
 * answered 200), and moves a payment only forward, whatever order the events arrive in.
 */
const signer = new Stripe('sk_test_local');
let counter = 0;
const nowSec = () => Math.floor(Date.now() / 1000);

function event(type: string, object: Record<string, unknown>, account: string | undefined, created = nowSec()) {
  counter += 1;
  return { id: `evt_trust_${Date.now()}_${counter}`, object: 'event', type, account, created, data: { object }, livemode: false, api_version: '2024-06-20' };
}

function deliver(app: TestApp, payload: unknown, options: { timestamp?: number; raw?: string } = {}) {
  const body = options.raw ?? JSON.stringify(payload);
  const signature = signer.webhooks.generateTestHeaderString({ payload: body, secret: app.ctx.config.stripeWebhookSecret, ...(options.timestamp ? { timestamp: options.timestamp } : {}) });
  return app.request({ method: 'POST', url: '/internal/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
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

/** Delivers a signed event (200) and waits until its worker has settled it; returns its stored row. */
async function settle(t: Test, app: TestApp, payload: { id: string }) {
  const response = await deliver(app, payload);
  t.equal(response.status, 200, `event ${payload.id} acknowledged`);
  return until(`event ${payload.id} settled`, async () => app.ctx.db('stripeEvents').where({ id: payload.id }).whereNot({ status: 'pending' }).first());
}

interface Shop {
  owner: Owner;
  accountId: string;
  variantId: string;
}

/** A store of the test, taking Stripe payments only, with a 20000 board (+1500 express shipping). */
async function shop(app: TestApp, stripe: StripeServer): Promise<Shop> {
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Board', [{ price: 20000, stock: 50 }]);
  return { owner, accountId, variantId: product.variants[0]!.id };
}

/** A new checkout session of the shop and its PaymentIntent (as the fake Stripe holds it). */
async function checkout(app: TestApp, stripe: StripeServer, shop: Shop, status = 'succeeded') {
  const { session } = await openSession(app, shop.owner, [{ variantId: shop.variantId, quantity: 1 }]);
  if (session.status !== 201) throw new Error(`session failed: ${session.raw}`);
  const sessionId = session.body.data.checkoutSession.id as string;
  const row = await app.ctx.db('checkoutSessions').where({ id: sessionId }).first('paymentIntentId');
  const intent = stripe.setIntentStatus(row.paymentIntentId, status);
  return { sessionId, intent: { ...intent } as Record<string, unknown> & { id: string; amount: number } };
}

const orderOf = (app: TestApp, sessionId: string) => app.ctx.db('orders').where({ checkoutSessionId: sessionId }).first();
const revenue = async (app: TestApp, owner: Owner) => (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.stats.revenue30d as number;

t.test('payment events: only the store’s account, amount and currency act; payments move only forward', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const a = await shop(app, stripe);
  const b = await shop(app, stripe);

  await t.test('an event from another connected account changes nothing and is recorded ignored', async (t) => {
    const { sessionId, intent } = await checkout(app, stripe, a);
    for (const account of [b.accountId, undefined]) {
      const row = await settle(t, app, event('payment_intent.succeeded', intent, account));
      t.equal(row.status, 'ignored');
      t.match(row.reason, /not the store's connected account/);
    }
    t.notOk(await orderOf(app, sessionId), 'no order for store A');
    t.equal((await app.ctx.db('checkoutSessions').where({ id: sessionId }).first()).status, 'pending');

    // A's order, paid; a refund from B's account leaves it paid and in the revenue.
    const paid = await settle(t, app, event('payment_intent.succeeded', intent, a.accountId));
    t.equal(paid.status, 'processed');
    t.equal((await orderOf(app, sessionId)).paymentStatus, 'paid');
    const before = await revenue(app, a.owner);
    const foreignRefund = await settle(t, app, event('charge.refunded', { id: 'ch_foreign', object: 'charge', payment_intent: intent.id, amount: 21500, currency: 'usd', amount_refunded: 21500, refunded: true }, b.accountId));
    t.equal(foreignRefund.status, 'ignored');
    t.match(foreignRefund.reason, /account .*not the store's connected account/);
    t.match(await orderOf(app, sessionId), { paymentStatus: 'paid', amountRefunded: 0 });
    t.equal(await revenue(app, a.owner), before);
  });

  await t.test('an event for another amount or currency changes nothing', async (t) => {
    const { sessionId, intent } = await checkout(app, stripe, a);
    const cheaper = await settle(t, app, event('payment_intent.succeeded', { ...intent, amount: 100 }, a.accountId));
    t.match(cheaper, { status: 'ignored', reason: /amount 100 does not match the checkout session's 21500/ });
    const euros = await settle(t, app, event('payment_intent.succeeded', { ...intent, currency: 'eur' }, a.accountId));
    t.match(euros, { status: 'ignored', reason: /currency eur does not match/ });
    t.notOk(await orderOf(app, sessionId));
    // The shopper's confirm holds the PaymentIntent to the same rule.
    stripe.intents.get(intent.id)!.amount = 100;
    t.equal((await confirm(app, a.owner, sessionId)).body.error?.code, 'payment_not_completed');
    stripe.intents.get(intent.id)!.amount = 21500;
    t.equal((await confirm(app, a.owner, sessionId)).status, 200);

    const paid = await orderOf(app, sessionId);
    const wrongRefund = await settle(t, app, event('charge.refunded', { id: 'ch_x', object: 'charge', payment_intent: intent.id, amount: 99999, currency: 'usd', amount_refunded: 99999, refunded: true }, a.accountId));
    t.match(wrongRefund, { status: 'ignored', reason: /amount 99999 does not match the order's 21500/ });
    t.equal((await orderOf(app, sessionId)).paymentStatus, paid.paymentStatus);
  });

  await t.test('payment_failed after succeeded leaves the order paid, whether it is older or newer', async (t) => {
    const { sessionId, intent } = await checkout(app, stripe, a);
    const created = nowSec();
    await settle(t, app, event('payment_intent.succeeded', intent, a.accountId, created));
    t.match(await orderOf(app, sessionId), { paymentStatus: 'paid', paymentEventCreated: new Date(created * 1000) });
    const older = await settle(t, app, event('payment_intent.payment_failed', { ...intent, status: 'requires_payment_method' }, a.accountId, created - 10));
    t.match(older, { status: 'ignored', reason: /stale/ });
    const sameSecond = await settle(t, app, event('payment_intent.payment_failed', { ...intent, status: 'requires_payment_method' }, a.accountId, created));
    t.match(sameSecond, { status: 'ignored', reason: /the payment is paid: failed would move it backwards/ });
    t.equal((await orderOf(app, sessionId)).paymentStatus, 'paid');
    const listed = await app.request({ url: '/admin/orders?status=failed', ...admin(a.owner) });
    t.same(listed.body.data.orders, []);
  });

  await t.test('an older account.updated after a newer one does not overwrite it; one second apart is asked of Stripe', async (t) => {
    const created = nowSec();
    const account = stripe.accounts.get(b.accountId)!;
    const newer = await settle(t, app, event('account.updated', { ...account, charges_enabled: true, payouts_enabled: false }, b.accountId, created));
    t.equal(newer.status, 'processed');
    t.match(await app.ctx.db('storePaymentAccounts').where({ accountId: b.accountId }).first(), { chargesEnabled: true, payoutsEnabled: false, lastEventId: newer.id });
    const older = await settle(t, app, event('account.updated', { ...account, charges_enabled: false, payouts_enabled: false }, b.accountId, created - 60));
    t.match(older, { status: 'ignored', reason: new RegExp(`stale: .* before the last applied event ${newer.id}`) });
    t.match(await app.ctx.db('storePaymentAccounts').where({ accountId: b.accountId }).first(), { chargesEnabled: true, lastEventId: newer.id });

    // Same second: Stripe's account as it is now decides (here: payouts enabled, whatever the event said).
    const reads = stripe.requests.filter((r) => r.method === 'GET' && r.path === `/v1/accounts/${b.accountId}`).length;
    const tie = await settle(t, app, event('account.updated', { ...account, charges_enabled: false, payouts_enabled: false }, b.accountId, created));
    t.equal(tie.status, 'processed');
    t.equal(stripe.requests.filter((r) => r.method === 'GET' && r.path === `/v1/accounts/${b.accountId}`).length, reads + 1, 'Stripe asked once');
    t.match(await app.ctx.db('storePaymentAccounts').where({ accountId: b.accountId }).first(), { chargesEnabled: true, payoutsEnabled: true });

    // An account event sent by one account about another is not believed.
    const forged = await settle(t, app, event('account.updated', { ...account, charges_enabled: false }, a.accountId, created + 5));
    t.match(forged, { status: 'ignored', reason: /about account/ });
    t.equal((await app.ctx.db('storePaymentAccounts').where({ accountId: b.accountId }).first()).chargesEnabled, true);
  });

  await t.test('requires_capture is authorized, then captured is paid; canceled voids an authorisation', async (t) => {
    const before = await revenue(app, a.owner);
    // The webhook: amount_capturable_updated makes the order, authorized.
    const held = await checkout(app, stripe, a, 'requires_capture');
    const created = nowSec();
    await settle(t, app, event('payment_intent.amount_capturable_updated', held.intent, a.accountId, created));
    const authorized = await orderOf(app, held.sessionId);
    t.equal(authorized.paymentStatus, 'authorized');
    const read = await app.request({ url: `/admin/orders/${authorized.id}`, ...admin(a.owner) });
    t.match(read.body.data.order, { paymentStatus: 'authorized', amountRefunded: 0 });
    t.equal((await app.request({ url: '/admin/orders?status=authorized', ...admin(a.owner) })).body.data.orders.length, 1);
    t.equal(await revenue(app, a.owner), before + 21500, 'an authorised order counts');
    const captured = await settle(t, app, event('payment_intent.succeeded', { ...held.intent, status: 'succeeded' }, a.accountId, created + 1));
    t.equal(captured.status, 'processed');
    t.equal((await orderOf(app, held.sessionId)).paymentStatus, 'paid');
    const lateHold = await settle(t, app, event('payment_intent.amount_capturable_updated', held.intent, a.accountId, created + 1));
    t.match(lateHold, { status: 'ignored', reason: /paid: authorized would move it backwards/ });
    const cancelPaid = await settle(t, app, event('payment_intent.canceled', { ...held.intent, status: 'canceled' }, a.accountId, created + 2));
    t.match(cancelPaid, { status: 'ignored', reason: /paid: voided would move it backwards/ });

    // The shopper's confirm of a held card: authorized too; the hold canceled voids it and leaves revenue.
    const shopper = await checkout(app, stripe, a, 'requires_capture');
    const confirmed = await confirm(app, a.owner, shopper.sessionId);
    t.equal(confirmed.status, 200);
    t.equal(confirmed.body.data.order.paymentStatus, 'authorized');
    const withBoth = await revenue(app, a.owner);
    const voided = await settle(t, app, event('payment_intent.canceled', { ...shopper.intent, status: 'canceled' }, a.accountId));
    t.equal(voided.status, 'processed');
    t.equal((await orderOf(app, shopper.sessionId)).paymentStatus, 'voided');
    t.equal(await revenue(app, a.owner), withBoth - 21500, 'a voided order leaves revenue');
    const afterVoid = await settle(t, app, event('payment_intent.succeeded', { ...shopper.intent, status: 'succeeded' }, a.accountId, nowSec() + 1));
    t.match(afterVoid, { status: 'ignored', reason: /voided: paid would move it backwards/ });

    // Canceled before any order: the session's payment is voided and a later authorisation makes no order.
    const abandoned = await checkout(app, stripe, a, 'canceled');
    const cancel = await settle(t, app, event('payment_intent.canceled', abandoned.intent, a.accountId));
    t.equal(cancel.status, 'processed');
    t.equal((await app.ctx.db('checkoutSessions').where({ id: abandoned.sessionId }).first()).paymentStatus, 'voided');
    const revived = await settle(t, app, event('payment_intent.amount_capturable_updated', { ...abandoned.intent, status: 'requires_capture' }, a.accountId));
    t.match(revived, { status: 'ignored', reason: /checkout session: the payment is voided/ });
    t.notOk(await orderOf(app, abandoned.sessionId));
  });

  await t.test('charge.refunded records partial and full refunds, in order, and revenue follows', async (t) => {
    const { sessionId, intent } = await checkout(app, stripe, a);
    const created = nowSec();
    await settle(t, app, event('payment_intent.succeeded', intent, a.accountId, created));
    const start = await revenue(app, a.owner);
    const charge = { id: 'ch_refund', object: 'charge', payment_intent: intent.id, amount: 21500, currency: 'usd' };
    const partial = await settle(t, app, event('charge.refunded', { ...charge, amount_refunded: 5000, refunded: false }, a.accountId, created + 2));
    t.equal(partial.status, 'processed');
    const order = await orderOf(app, sessionId);
    t.match(order, { paymentStatus: 'partially_refunded', amountRefunded: 5000 });
    t.equal(await revenue(app, a.owner), start - 5000);
    const olderPartial = await settle(t, app, event('charge.refunded', { ...charge, amount_refunded: 1000, refunded: false }, a.accountId, created + 1));
    t.match(olderPartial, { status: 'ignored', reason: /stale/ });
    const samePartial = await settle(t, app, event('charge.refunded', { ...charge, amount_refunded: 1000, refunded: false }, a.accountId, created + 2));
    t.match(samePartial, { status: 'ignored', reason: /stale: 1000 refunded, 5000 already recorded/ });
    t.equal((await orderOf(app, sessionId)).amountRefunded, 5000);

    const full = await settle(t, app, event('charge.refunded', { ...charge, amount_refunded: 21500, refunded: true }, a.accountId, created + 3));
    t.equal(full.status, 'processed');
    const read = await app.request({ url: `/admin/orders/${order.id}`, ...admin(a.owner) });
    t.match(read.body.data.order, { paymentStatus: 'refunded', amountRefunded: 21500 });
    t.equal(await revenue(app, a.owner), start - 21500);
    const lateSuccess = await settle(t, app, event('payment_intent.succeeded', intent, a.accountId, created + 4));
    t.match(lateSuccess, { status: 'ignored', reason: /refunded: paid would move it backwards/ });
    t.equal((await orderOf(app, sessionId)).paymentStatus, 'refunded');
  });

  await t.test('racing events and the shopper: one order, never moved back, revenue counted once', async (t) => {
    const start = await revenue(app, a.owner);
    const { sessionId, intent } = await checkout(app, stripe, a);
    const created = nowSec();
    const succeeded = event('payment_intent.succeeded', intent, a.accountId, created);
    const failed = event('payment_intent.payment_failed', { ...intent, status: 'requires_payment_method' }, a.accountId, created);
    const racing = await Promise.all([deliver(app, succeeded), deliver(app, failed), confirm(app, a.owner, sessionId), deliver(app, succeeded)]);
    t.same(racing.map((r) => r.status), [200, 200, 200, 200]);
    await until('both settled', async () => (await app.ctx.db('stripeEvents').whereIn('id', [succeeded.id, failed.id]).where({ status: 'pending' })).length === 0);
    t.equal(await app.ctx.db('orders').where({ checkoutSessionId: sessionId }).count('* as c').first().then((r) => Number(r!.c)), 1, 'one order');
    t.equal((await orderOf(app, sessionId)).paymentStatus, 'paid');
    t.equal(await revenue(app, a.owner), start + 21500);

    // Two refunds of one charge at once: the larger (and later) one stands, taken out of revenue once.
    const charge = { id: 'ch_race', object: 'charge', payment_intent: intent.id, amount: 21500, currency: 'usd', refunded: false };
    const refunds = [event('charge.refunded', { ...charge, amount_refunded: 3000 }, a.accountId, created + 1), event('charge.refunded', { ...charge, amount_refunded: 8000 }, a.accountId, created + 2)];
    t.same((await Promise.all(refunds.map((r) => deliver(app, r)))).map((r) => r.status), [200, 200]);
    await until('refunds settled', async () => (await app.ctx.db('stripeEvents').whereIn('id', refunds.map((r) => r.id)).where({ status: 'pending' })).length === 0);
    t.match(await orderOf(app, sessionId), { paymentStatus: 'partially_refunded', amountRefunded: 8000 });
    t.equal(await revenue(app, a.owner), start + 21500 - 8000);
  });

  await t.test('a numeric or malformed event id is 400, and nothing is stored', async (t) => {
    const stored = async () => Number((await app.ctx.db('stripeEvents').count('* as c').first())!.c);
    const count = await stored();
    for (const id of [12345, 'evt_../../x', '', null, 'x'.repeat(300)]) {
      const response = await deliver(app, { ...event('customer.created', { id: 'cus_1', object: 'customer' }, a.accountId), id });
      t.equal(response.status, 400, `id ${JSON.stringify(id)?.slice(0, 20)}`);
      t.equal(response.body.error.code, 'bad_request');
      t.equal(response.body.error.details[0].path, 'id');
    }
    const noCreated = await deliver(app, { ...event('customer.created', { id: 'cus_1', object: 'customer' }, a.accountId), created: 'yesterday' });
    t.equal(noCreated.status, 400);
    const notJson = await deliver(app, null, { raw: '[1,2,3]' });
    t.equal(notJson.status, 400);
    t.equal(await stored(), count);
  });

  await t.test('a signature dated more than 5 minutes from now, either way, is refused', async (t) => {
    const { sessionId, intent } = await checkout(app, stripe, a);
    for (const offset of [6 * 60, -6 * 60]) {
      const late = event('payment_intent.succeeded', intent, a.accountId);
      const response = await deliver(app, late, { timestamp: nowSec() + offset });
      t.equal(response.status, 400, `${offset} s`);
      t.equal(response.body.error.code, 'bad_request');
      t.notOk(await app.ctx.db('stripeEvents').where({ id: late.id }).first(), 'not stored');
    }
    const inTime = event('payment_intent.succeeded', intent, a.accountId);
    t.equal((await deliver(app, inTime, { timestamp: nowSec() + 60 })).status, 200, 'a minute of clock skew is fine');
    await until('the order', () => orderOf(app, sessionId));
  });
});
