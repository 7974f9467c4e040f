import { stripeEventEnvelope } from '../../services/payments/index.js';
import { receiveStripeEvent } from '../../services/payments/index.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { stripeReceiptResponse } from './schemas.js';

export const stripeWebhookRoute = publicRoute({
  method: 'POST',
  path: '/internal/webhooks/stripe',
  options: {
    description:
      'Stripe webhook receiver: Stripe-Signature checked over the raw body (400 when wrong, dated more than 5 minutes from now either way, or the event malformed); each event stored once by id and processed by a worker, which ignores (recording why) events not from the store’s connected account, for another amount or currency, or older than the payment’s state',
    tags: ['internal', 'payments'],
    plugins: {
      openapi: {
        requestBody: { description: 'A Stripe event, read as sent (the signature covers these exact bytes)', content: { 'application/json': { schema: stripeEventEnvelope } } },
        headers: [
          {
            name: 'Stripe-Signature',
            in: 'header',
            required: true,
            description: "Stripe's signature of the body with the endpoint secret (STRIPE_WEBHOOK_SECRET): t=<unix time>,v1=<hex HMAC>; 5-minute tolerance either way",
            schema: { type: 'string' }
          }
        ]
      }
    },
    // The signature covers the exact bytes Stripe sent: never let hapi parse (and re-serialise) them.
    payload: { parse: false, output: 'data', allow: ['application/json', 'text/plain'], maxBytes: 1024 * 1024 },
    response: { status: { 200: stripeReceiptResponse } },
    handler: publicHandler<{}, Buffer | string | null>(({ ctx, payload, request }) => {
      const raw = Buffer.isBuffer(payload) ? payload : Buffer.from(payload ?? '');
      const signature = request.headers['stripe-signature'];
      return receiveStripeEvent(ctx, raw, typeof signature === 'string' ? signature : undefined);
    })
  }
});
