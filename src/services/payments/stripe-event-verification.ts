import Joi from 'joi';
import type { StripeEvent } from '../../adapters/payments/index.js';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../errors.js';

/** The contract's webhook window: a signature timestamp further than this from now, either way, is refused. */
export const SIGNATURE_TOLERANCE_SEC = 5 * 60;

/**
 * The parts of an event the service stores, orders and dispatches on; the object is checked per type
 * when processed. Also the receiver's documented request body.
 */
export const stripeEventEnvelope = Joi.object({
  id: Joi.string()
    .max(255)
    .pattern(/^evt_[A-Za-z0-9_]+$/)
    .required()
    .messages({ 'string.pattern.base': 'must be a Stripe event id (evt_…)' }),
  type: Joi.string().max(255).pattern(/^[a-z0-9_.]+$/).required(),
  created: Joi.number().integer().min(1).required(),
  account: Joi.string().max(255).pattern(/^acct_[A-Za-z0-9_]+$/).allow(null),
  data: Joi.object({ object: Joi.object().required() }).unknown(true).required()
}).unknown(true);

/** The signature's timestamp, read as the stripe library reads it (the last `t=`). */
function signedAt(header: string): number {
  let timestamp = -1;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') timestamp = parseInt(value ?? '', 10);
  }
  return timestamp;
}

/**
 * A Stripe event from the raw body: `Stripe-Signature` checked over the exact bytes, its timestamp
 * within 5 minutes of now (either side: the library checks only the past), and the envelope well
 * formed (a numeric or malformed id would otherwise fail deep in storing it). Anything else is 400.
 */
export function verifiedStripeEvent(ctx: AppContext, rawBody: Buffer, signature: string | undefined): StripeEvent {
  let event: unknown;
  try {
    if (!signature) throw new Error('missing Stripe-Signature');
    event = ctx.stripe.constructEvent(rawBody, signature, ctx.config.stripeWebhookSecret, SIGNATURE_TOLERANCE_SEC);
  } catch (error) {
    throw badRequest('The Stripe signature does not match the body', [{ path: 'Stripe-Signature', message: (error as Error).message }]);
  }
  const skew = signedAt(signature) - Math.floor(Date.now() / 1000);
  if (!Number.isFinite(skew) || Math.abs(skew) > SIGNATURE_TOLERANCE_SEC) {
    throw badRequest('The Stripe signature timestamp is outside the 5 minute tolerance', [
      { path: 'Stripe-Signature', message: Number.isFinite(skew) ? `timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} this server's clock` : 'no valid timestamp' }
    ]);
  }
  const { error } = stripeEventEnvelope.validate(event, { abortEarly: false, convert: false });
  if (error) {
    throw badRequest('The Stripe event is malformed', error.details.map((detail) => ({ path: detail.path.join('.'), message: detail.message })));
  }
  return event as StripeEvent;
}
