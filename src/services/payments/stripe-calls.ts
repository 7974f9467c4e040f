import { upstreamFailed } from '../../errors.js';

/** Runs a Stripe call (ctx.stripe, the payments port); a Stripe or network failure becomes 502 `upstream_failed`. */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const message = (error as Error).message;
    throw upstreamFailed(`Stripe could not ${what}: ${message}`, [{ path: 'stripe', message }]);
  }
}
