import { AppError } from '../../errors.js';

/**
 * A Stripe call that failed: 502 `upstream_failed`, and whether Stripe definitely refused it
 * (answered 4xx about the request itself: a card or request error, a missing object). Only a
 * definite refusal says nothing happened under the call's idempotency key; a network failure, a
 * timeout, a 5xx, a rate limit or a key still in use may hide a refund Stripe made, which the same
 * key asked again finds.
 */
export class StripeCallFailed extends AppError {
  constructor(message: string, readonly refused: boolean) {
    super(502, 'upstream_failed', message, [{ path: 'stripe', message }]);
  }
}

/** A definite refusal, read from the SDK error's HTTP status and type (no SDK import outside the adapter). */
function definiteRefusal(error: unknown): boolean {
  const { statusCode, type } = (error ?? {}) as { statusCode?: unknown; type?: unknown };
  return (statusCode === 400 || statusCode === 402 || statusCode === 404) && type !== 'StripeIdempotencyError';
}

/** Runs a Stripe call (ctx.stripe, the payments port); a Stripe or network failure becomes 502 `upstream_failed` (StripeCallFailed). */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const message = (error as Error).message;
    throw new StripeCallFailed(`Stripe could not ${what}: ${message}`, definiteRefusal(error));
  }
}

/** Whether an error of a Stripe call says Stripe refused it (nothing was done under its key). */
export const stripeRefused = (error: unknown): boolean => error instanceof StripeCallFailed && error.refused;
