import Stripe from 'stripe';
import type { TestApp } from './app.js';

/**
 * Stripe events for the tests that play Stripe's side of a payment: built as Stripe sends them,
 * signed with the stripe library itself and delivered to our receiver, then waited on until the
 * event's job has handled it.
 */
const signer = new Stripe('sk_test_local');
let counter = 0;

/** An event of `type` about `object` (a PaymentIntent, a refund, …), with an id unique in the run. */
export function stripeEvent(type: string, object: Record<string, unknown>, account?: string) {
  counter += 1;
  return { id: `evt_${process.pid}_${Date.now()}_${counter}`, object: 'event', type, account, created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, api_version: '2024-06-20' };
}

/** POSTs the event to /internal/webhooks/stripe with a valid Stripe-Signature. */
export async function deliverStripeEvent(app: TestApp, payload: unknown) {
  const body = JSON.stringify(payload);
  const signature = signer.webhooks.generateTestHeaderString({ payload: body, secret: app.ctx.config.stripeWebhookSecret });
  return app.request({ method: 'POST', url: '/internal/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
}

/** Waits (15 s at most) until the event is processed or ignored; its stripe_events row. */
export async function stripeEventHandled(app: TestApp, eventId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const row = await app.ctx.db('stripeEvents').where({ id: eventId }).whereIn('status', ['processed', 'ignored']).first();
    if (row) return row;
    if (Date.now() > deadline) throw new Error(`event ${eventId} not processed: ${JSON.stringify(await app.ctx.db('stripeEvents').where({ id: eventId }).first('status', 'attempts', 'error', 'reason'))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
