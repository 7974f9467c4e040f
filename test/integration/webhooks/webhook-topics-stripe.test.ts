import Stripe from 'stripe';
import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { settled } from '../../helpers/jobs.js';
import { connectStripe, startStripeServer, type StripeServer } from '../../helpers/stripe-server.js';
import { startReceiver, waitFor, type Received } from '../../helpers/webhook-receiver.js';

// order.paid from Stripe, against the local Stripe server: an order placed paid sends order.created
// and order.paid (one statement of the checkout); an authorised order sends order.paid when the
// signed payment_intent.succeeded event arrives, once.
t.setTimeout(180_000);

const signer = new Stripe('sk_test_local');
const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });
const topicBodies = (received: Received[], topic: string) => received.filter((r) => r.headers['shopwright-topic'] === topic).map((r) => JSON.parse(r.body));

function deliverStripeEvent(app: TestApp, type: string, object: Record<string, unknown>, account: string) {
  const body = JSON.stringify({ id: `evt_topics_${Date.now()}_${Math.random().toString(36).slice(2)}`, object: 'event', type, account, created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, api_version: '2024-06-20' });
  const signature = signer.webhooks.generateTestHeaderString({ payload: body, secret: app.ctx.config.stripeWebhookSecret });
  return app.request({ method: 'POST', url: '/internal/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
}

async function stripeCheckout(app: TestApp, stripe: StripeServer, owner: Owner, variantId: string, status: string) {
  const { session } = await openSession(app, owner, [{ variantId, quantity: 1 }]);
  const sessionId = session.body.data.checkoutSession.id as string;
  const row = await app.ctx.db('checkoutSessions').where({ id: sessionId }).first('paymentIntentId');
  const intent = stripe.setIntentStatus(row.paymentIntentId, status);
  const placed = await confirm(app, owner, sessionId);
  if (placed.status >= 300) throw new Error(`confirm: ${placed.status} ${placed.raw}`);
  return { order: placed.body.data.order, intent: { ...intent } as Record<string, unknown> };
}

t.test('order.paid from Stripe: placed paid (with order.created), or paid later by payment_intent.succeeded', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0', ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Board', [{ price: 20000, stock: 50 }]);
  const receiver = await startReceiver(t);
  const subscribed = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: receiver.url, topics: ['order.created', 'order.paid'] }, ...admin(owner) });
  t.equal(subscribed.status, 201);

  const paidAtOnce = await stripeCheckout(app, stripe, owner, product.variants[0]!.id, 'succeeded');
  t.equal(paidAtOnce.order.paymentStatus, 'paid');
  await waitFor('order.created and order.paid', () => topicBodies(receiver.received, 'order.paid').length === 1 && topicBodies(receiver.received, 'order.created').length === 1);
  const [created] = topicBodies(receiver.received, 'order.created');
  const [paid] = topicBodies(receiver.received, 'order.paid');
  const shown = (await app.request({ url: `/admin/orders/${paidAtOnce.order.id}`, ...admin(owner) })).body.data.order;
  t.same(created.data, shown);
  t.same(paid.data, shown);
  t.not(created.id, paid.id, 'two events');

  const authorized = await stripeCheckout(app, stripe, owner, product.variants[0]!.id, 'requires_capture');
  t.equal(authorized.order.paymentStatus, 'authorized');
  await waitFor('the second order.created', () => topicBodies(receiver.received, 'order.created').length === 2);
  t.equal(topicBodies(receiver.received, 'order.paid').length, 1, 'an authorised order is not paid yet');
  const succeeded = { ...authorized.intent, status: 'succeeded' };
  t.equal((await deliverStripeEvent(app, 'payment_intent.succeeded', succeeded, accountId)).status, 200);
  await waitFor('order.paid from the Stripe event', () => topicBodies(receiver.received, 'order.paid').length === 2, 30_000);
  const later = topicBodies(receiver.received, 'order.paid')[1];
  t.match(later.data, { id: authorized.order.id, paymentStatus: 'paid' });
  t.same(later.data, (await app.request({ url: `/admin/orders/${authorized.order.id}`, ...admin(owner) })).body.data.order);
  // The same event again (Stripe retries): nothing more.
  t.equal((await deliverStripeEvent(app, 'payment_intent.succeeded', succeeded, accountId)).status, 200);
  await settled(app, ['webhooks']);
  t.equal(topicBodies(receiver.received, 'order.paid').length, 2, 'a repeated payment event sends no second order.paid');
});
