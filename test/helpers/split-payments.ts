import { buildApp, signupOwner, type Owner, type Teardownable, type TestApp } from './app.js';
import { admin } from './catalog.js';
import { confirm, openSession, sellable, setupShop } from './checkout.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from './stripe-events.js';
import { connectStripe, startStripeServer, type StripeServer } from './stripe-server.js';

/** A Stripe order of one unit (paid by its PaymentIntent), then an edit adding one unit of `added`, its balance paid through the link. */
export async function twoPayments(app: TestApp, stripe: StripeServer, owner: Owner, accountId: string, variantId: string, added: string, email: string) {
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

/**
 * A Stripe shop (its Stripe server, webhooks worker, manual payments off) with one order paid in two
 * payments (twoPayments): a product of two variants at `prices` (the first bought at checkout, the
 * second added by an edit and paid by link).
 */
export async function splitPaidShop(t: Teardownable, options: { title: string; email: string; prices?: [number, number]; listen?: boolean }) {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { ...(options.listen ? { listen: true } : {}), workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const [checkoutPrice, addedPrice] = options.prices ?? [1000, 1200];
  const product = await sellable(app, owner, options.title, [
    { price: checkoutPrice, stock: 50 },
    { price: addedPrice, stock: 50 }
  ]);
  const paid = await twoPayments(app, stripe, owner, accountId, product.variants[0]!.id, product.variants[1]!.id, options.email);
  return { stripe, app, owner, accountId, paid };
}
