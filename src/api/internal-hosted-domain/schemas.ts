import Joi from 'joi';
import type { HeaderParameter } from '../openapi/build-document.js';
import { responseObject } from '../schemas.js';

/** The delivery was accepted; `applied` says whether it made a domain active. */
export const hostedDomainReceiptResponse = responseObject({
  received: Joi.boolean().valid(true).required(),
  applied: Joi.boolean().required()
});

/** The headers of a delivery signed with the "timestamp.body" HMAC scheme (services/signed-requests.ts). */
export const SIGNED_HEADERS: HeaderParameter[] = [
  { name: 'x-webhook-timestamp', in: 'header', required: true, description: 'Unix time of the delivery (seconds); 5-minute tolerance', schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'x-webhook-signature',
    in: 'header',
    required: true,
    description: 'sha256=<hex HMAC-SHA256 of "timestamp.body" with the shared secret>; each signature is accepted once',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }
  }
];

/** What the hosting provider posts: flat `{ hostname, event }`, or an envelope `{ type, data: { hostname, status } }`. */
export const hostedDomainEventBody = {
  description: 'The provider\'s event, read as sent (the signature covers these exact bytes)',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          hostname: { type: 'string', description: 'the domain the event is about (or `domain`, or `data.hostname`)' },
          event: { type: 'string', description: 'e.g. certificate.issued (makes the domain active) or domain.verified (or `type`, `status`, `data.status`)' },
          type: { type: 'string' },
          status: { type: 'string' },
          data: { type: 'object' }
        }
      }
    }
  }
};
