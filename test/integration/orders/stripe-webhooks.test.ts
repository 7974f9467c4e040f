import Stripe from 'stripe';
import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, setupShop, sellable } from '../../helpers/checkout.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

const signer = new Stripe('sk_test_local');
let counter = 0;

function event(type: string, object: Record<string, unknown>, account?: string) {
  counter += 1;
  return { id: `evt_test_${Date.now()}_${counter}`, object: 'event', type, account, created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, api_version: '2024-06-20' };
}

async function deliver(app: TestApp, payload: unknown, options: { tamper?: boolean; signature?: string | null } = {}) {
  const body = JSON.stringify(payload);
  let signature = options.signature === undefined ? signer.webhooks.generateTestHeaderString({ payload: body, secret: app.ctx.config.stripeWebhookSecret }) : options.signature;
  const sent = options.tamper ? body.replace('"livemode":false', '"livemode":true') : body;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature) headers['stripe-signature'] = signature;
  return app.request({ method: 'POST', url: '/internal/webhooks/stripe', payload: sent, headers });
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

t.test('stripe webhooks: signatures, once per event, racing the shopper, refunds, failures, account updates', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Board', [{ price: 20000, stock: 10 }]);
  const orderCount = async () => Number((await app.ctx.db('orders').where({ storeId: owner.store.id }).count('* as c').first())!.c);

  // Tampered or missing signatures: 400 and nothing stored.
  const bogus = event('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent', status: 'succeeded', metadata: {} }, accountId);
  const tampered = await deliver(app, bogus, { tamper: true });
  t.equal(tampered.status, 400);
  t.equal(tampered.body.error.code, 'bad_request');
  const missing = await deliver(app, bogus, { signature: null });
  t.equal(missing.status, 400);
  const wrongSecret = await deliver(app, bogus, { signature: signer.webhooks.generateTestHeaderString({ payload: JSON.stringify(bogus), secret: 'whsec_other' }) });
  t.equal(wrongSecret.status, 400);
  t.equal((await app.ctx.db('stripeEvents')).length, 0, 'nothing stored');

  // The webhook delivered 3 times, racing the shopper's confirm: one order.
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: 'race@example.com' });
  const checkoutSession = session.body.data.checkoutSession;
  const intentId = [...stripe.intents.keys()].pop()!;
  const intent = stripe.setIntentStatus(intentId, 'succeeded');
  const succeeded = event('payment_intent.succeeded', { ...intent }, accountId);
  const racing = await Promise.all([deliver(app, succeeded), confirm(app, owner, checkoutSession.id), deliver(app, succeeded), confirm(app, owner, checkoutSession.id), deliver(app, succeeded)]);
  t.same(racing.map((r) => r.status), [200, 200, 200, 200, 200]);
  t.equal((await app.ctx.db('stripeEvents').where({ id: succeeded.id })).length, 1, 'the event is stored once');
  await until('the event processed', async () => (await app.ctx.db('stripeEvents').where({ id: succeeded.id, status: 'processed' }).first()) ?? null);
  t.equal(await orderCount(), 1, 'one order');
  const order = await app.ctx.db('orders').where({ storeId: owner.store.id }).first();
  t.equal(order.paymentStatus, 'paid');
  t.equal(order.paymentIntentId, intentId);

  // The shopper never confirms: the webhook creates the order through the same path.
  const { session: quiet } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 2 }], { email: 'quiet@example.com' });
  const quietIntent = stripe.setIntentStatus([...stripe.intents.keys()].pop()!, 'succeeded');
  const quietEvent = event('payment_intent.succeeded', { ...quietIntent }, accountId);
  t.equal((await deliver(app, quietEvent)).status, 200);
  const quietOrder = await until('the webhook order', async () => app.ctx.db('orders').where({ checkoutSessionId: quiet.body.data.checkoutSession.id }).first());
  t.match(quietOrder, { email: 'quiet@example.com', paymentStatus: 'paid', total: 41500 });
  const late = await confirm(app, owner, quiet.body.data.checkoutSession.id);
  t.equal(late.body.data.order.id, quietOrder.id, "the shopper's late confirm gets the same order");

  // A partial refund marks the order partially refunded (with the amount); a full one refunded.
  const partial = event('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: quietIntent.id, amount: 41500, currency: 'usd', amount_refunded: 1000, refunded: false }, accountId);
  await deliver(app, partial);
  await until('partial processed', async () => app.ctx.db('stripeEvents').where({ id: partial.id, status: 'processed' }).first());
  t.match(await app.ctx.db('orders').where({ id: quietOrder.id }).first(), { paymentStatus: 'partially_refunded', amountRefunded: 1000 });
  const full = event('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: quietIntent.id, amount: 41500, currency: 'usd', amount_refunded: 41500, refunded: true }, accountId);
  await deliver(app, full);
  await until('refund processed', async () => app.ctx.db('stripeEvents').where({ id: full.id, status: 'processed' }).first());
  t.equal((await app.ctx.db('orders').where({ id: quietOrder.id }).first()).paymentStatus, 'refunded');
  const dashboard = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(dashboard.body.data.stats.revenue30d, 21500, 'refunded orders leave revenue');

  // A failed payment is recorded on the session.
  const { session: declined } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: 'declined@example.com' });
  const declinedIntent = stripe.setIntentStatus([...stripe.intents.keys()].pop()!, 'requires_payment_method');
  const failedEvent = event('payment_intent.payment_failed', { ...declinedIntent }, accountId);
  await deliver(app, failedEvent);
  await until('failure recorded', async () => app.ctx.db('checkoutSessions').where({ id: declined.body.data.checkoutSession.id, paymentStatus: 'failed' }).first());
  t.equal((await confirm(app, owner, declined.body.data.checkoutSession.id)).body.error.code, 'payment_not_completed');

  // account.updated moves the payment status.
  const restricted = event('account.updated', { ...stripe.accounts.get(accountId)!, charges_enabled: false, details_submitted: true }, accountId);
  stripe.accounts.get(accountId)!.charges_enabled = false;
  await deliver(app, restricted);
  await until('account updated', async () => app.ctx.db('stripeEvents').where({ id: restricted.id, status: 'processed' }).first());
  t.equal((await app.ctx.db('storePaymentAccounts').where({ accountId }).first()).chargesEnabled, false);
  stripe.accounts.get(accountId)!.charges_enabled = true;
  await deliver(app, event('account.updated', { ...stripe.accounts.get(accountId)! }, accountId));
  await until('account active again', async () => app.ctx.db('storePaymentAccounts').where({ accountId, chargesEnabled: true }).first());

  // A payment for a cart that another session already completed cannot become an order: after the
  // last attempt the operator gets an issue.
  const { cartId, session: first } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: 'twice@example.com' });
  const firstIntent = stripe.setIntentStatus([...stripe.intents.keys()].pop()!, 'succeeded');
  const second = await app.request({
    method: 'POST',
    url: `/storefront/carts/${cartId}/checkout-session`,
    payload: { email: 'twice@example.com', shippingAddress: { firstName: 'T', lastName: 'W', line1: '1', city: 'C', postalCode: '1', country: 'US' } },
    storefrontToken: owner.storefrontToken
  });
  stripe.setIntentStatus([...stripe.intents.keys()].pop()!, 'succeeded');
  t.equal((await confirm(app, owner, second.body.data.checkoutSession.id)).status, 200);
  t.not(first.body.data.checkoutSession.id, second.body.data.checkoutSession.id);
  const orphan = event('payment_intent.succeeded', { ...firstIntent }, accountId);
  await deliver(app, orphan);
  const issue = await until('an issue', async () => app.ctx.db('storeIssues').where({ storeId: owner.store.id, kind: 'stripe_webhook_failed', subject: orphan.id }).first());
  t.match(issue, { severity: 'critical' });
  t.equal((await app.ctx.db('stripeEvents').where({ id: orphan.id }).first()).status, 'failed');
  const issues = await app.request({ url: '/admin/store', ...admin(owner) });
  t.ok(issues.body.data.openIssues.some((i: any) => i.kind === 'stripe_webhook_failed'));

  // Unhandled event types are acknowledged and stored as processed.
  const other = event('customer.created', { id: 'cus_1', object: 'customer' });
  const ack = await deliver(app, other);
  t.equal(ack.status, 200);
  t.equal((await app.ctx.db('stripeEvents').where({ id: other.id }).first()).status, 'processed');
});
