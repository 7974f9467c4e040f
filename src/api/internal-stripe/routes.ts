import { receiveStripeEvent } from '../../services/payments/webhooks.js';
import { publicRoute } from '../route-helpers.js';
import { stripeReceiptResponse } from './schemas.js';

export const stripeWebhookRoute = publicRoute({
  method: 'POST',
  path: '/internal/webhooks/stripe',
  options: {
    description: 'Stripe webhook receiver: Stripe-Signature checked over the raw body (400 when wrong); each event stored once by id and processed by a worker',
    tags: ['internal', 'payments'],
    // The signature covers the exact bytes Stripe sent: never let hapi parse (and re-serialise) them.
    payload: { parse: false, output: 'data', allow: ['application/json', 'text/plain'], maxBytes: 1024 * 1024 },
    response: { status: { 200: stripeReceiptResponse } },
    handler: async (request) => {
      const raw = Buffer.isBuffer(request.payload) ? request.payload : Buffer.from((request.payload as string | null) ?? '');
      const signature = request.headers['stripe-signature'];
      return receiveStripeEvent(request.server.app.ctx, raw, typeof signature === 'string' ? signature : undefined);
    }
  }
});
