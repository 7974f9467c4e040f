import Stripe from 'stripe';
import type { AppContext } from '../../context.js';
import { upstreamFailed } from '../../errors.js';

const clients = new WeakMap<AppContext, Stripe>();

/** One Stripe client per context; `STRIPE_API_URL` points it at a local server in tests. */
export function stripeClient(ctx: AppContext): Stripe {
  let client = clients.get(ctx);
  if (!client) {
    const options: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 2, timeout: 10_000 };
    if (ctx.config.stripeApiUrl) {
      const url = new URL(ctx.config.stripeApiUrl);
      Object.assign(options!, { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol.replace(':', '') });
    }
    client = new Stripe(ctx.config.stripeSecretKey, options);
    clients.set(ctx, client);
  }
  return client;
}

/** Runs a Stripe call; a Stripe or network failure becomes 502 `upstream_failed`. */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const message = (error as Error).message;
    throw upstreamFailed(`Stripe could not ${what}: ${message}`, [{ path: 'stripe', message }]);
  }
}
