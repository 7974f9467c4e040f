import { receiveHostedDomainWebhook } from '../../services/domains/index.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { hostedDomainEventBody, hostedDomainReceiptResponse, SIGNED_HEADERS } from './schemas.js';

/** The raw bytes are what was signed: hapi must not parse (and re-serialise) the body. */
export const RAW_BODY = { parse: false, output: 'data', maxBytes: 1024 * 1024 } as const;

export const hostedDomainWebhookRoute = publicRoute({
  method: 'POST',
  path: '/internal/webhooks/hosted-domain',
  options: {
    description:
      'Hosting provider callback, signed: x-webhook-timestamp and x-webhook-signature = sha256=<hex HMAC of "timestamp.body" with HOSTED_DOMAIN_WEBHOOK_SECRET>; ' +
      '5-minute tolerance, replays refused (400). `{ hostname, event: "certificate.issued" }` makes the domain active.',
    tags: ['internal'],
    plugins: { openapi: { requestBody: hostedDomainEventBody, headers: SIGNED_HEADERS } },
    payload: RAW_BODY,
    response: { status: { 200: hostedDomainReceiptResponse } },
    handler: publicHandler<{}, Buffer | null>(({ ctx, payload, request }) => {
      const body = Buffer.isBuffer(payload) ? payload : Buffer.alloc(0);
      return receiveHostedDomainWebhook(ctx, request.headers as Record<string, string | undefined>, body);
    })
  }
});
