import { Redis } from 'ioredis';
import { createServer } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, openContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { freshBenchDatabase } from './database.js';
import { countStatements } from './statement-counter.js';
import { STEPS, type Step } from './shoppers.js';

const ADDRESS = { firstName: 'Bench', lastName: 'Shopper', line1: '1 Bench St', city: 'Loadville', postalCode: '10001', country: 'US' };


/**
 * SQL statements (BEGIN and COMMIT included), round trips to PostgreSQL, and Redis commands one
 * checkout's steps issue, counted in-process on a warm store. A count does not depend on how busy
 * the machine is, so it shows what a change to the hot path did even when throughput figures are
 * noisy. A statement sent while another is still unanswered on its connection (pg pipeline mode)
 * costs no round trip of its own. The outbox relay's own work (it runs beside the steps) is left out.
 */
export async function checkoutRoundTrips(): Promise<Record<Step, { sql: number; trips: number; redis: number }>> {
  const databaseUrl = await freshBenchDatabase('checkout_round_trips');
  const config = loadConfig({ ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, REDIS_PREFIX: 'bench-round-trips' });
  const ctx = createContext(config, { modules: MODULES, dbPoolMax: 4 });
  await openContext(ctx);
  const server = await createServer(ctx, { port: 0 });
  await server.initialize();
  const counter = countStatements();
  let redis = 0;
  const prototype = Redis.prototype as unknown as { sendCommand(command: unknown, ...rest: unknown[]): unknown };
  const sendCommand = prototype.sendCommand;
  prototype.sendCommand = function (this: unknown, command: unknown, ...rest: unknown[]) {
    if (counter.counting) redis += 1;
    return sendCommand.call(this, command, ...rest);
  };
  try {
    const call = async (method: string, url: string, payload?: object, headers: Record<string, string> = {}) => {
      const response = await server.inject({ method, url: `/api/v1${url}`, payload, headers });
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.payload}`);
      return JSON.parse(response.payload).data;
    };
    const signup = await call('POST', '/auth/signup', { firstName: 'A', lastName: 'B', email: 'trips@bench.example', password: 'benchmark-password', storeName: 'S', storeSlug: 'bench-trips' });
    const admin = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': signup.store.id };
    const settings = await call('PATCH', '/admin/store', { manualPaymentsEnabled: true, shippingMethods: [{ name: 'Standard', price: 500 }] }, admin);
    const shippingMethodId = (settings.store ?? settings).shippingMethods[0].id as string;
    const product = await call('POST', '/admin/products', { title: 'P', status: 'active', variants: [{ sku: 'p1', title: 'Default', price: 1000, inventoryQuantity: 1000 }] }, admin);
    const variantId = product.product.variants[0].id as string;
    const shopper = { 'x-storefront-token': signup.storefrontToken as string };

    const counts = {} as Record<Step, { sql: number; trips: number; redis: number }>;
    for (const counted of [false, true]) {
      const step = async (name: Step, run: () => Promise<any>) => {
        await ctx.outbox.drain();
        await new Promise((resolve) => setTimeout(resolve, 50)); // the relay's own COMMIT lands after drain resolves
        counter.reset();
        redis = 0;
        counter.counting = counted;
        const result = await run();
        counter.counting = false;
        counts[name] = { sql: counter.sql, trips: counter.trips, redis };
        return result;
      };
      const cart = await step('cart', () => call('POST', '/storefront/carts', { email: 'shopper@bench.example' }, shopper));
      const cartId = cart.cart.id as string;
      await step('item', () => call('POST', `/storefront/carts/${cartId}/items`, { variantId, quantity: 1 }, shopper));
      await step('shipping', () => call('POST', `/storefront/carts/${cartId}/shipping-method`, { shippingMethodId }, shopper));
      const session = await step('session', () => call('POST', `/storefront/carts/${cartId}/checkout-session`, { email: 'shopper@bench.example', shippingAddress: ADDRESS }, shopper));
      await step('confirm', () => call('POST', `/storefront/checkout-sessions/${session.checkoutSession.id}/confirm`, {}, shopper));
    }
    return counts;
  } finally {
    counter.restore();
    prototype.sendCommand = sendCommand;
    await server.stop();
    await closeContext(ctx);
  }
}

export function formatRoundTrips(counts: Record<Step, { sql: number; trips: number; redis: number }>): string {
  const total = (key: 'sql' | 'trips') => STEPS.reduce((sum, step) => sum + counts[step][key], 0);
  const perStep = (key: 'sql' | 'trips' | 'redis') => STEPS.map((step) => `${step} ${counts[step][key]}`).join(', ');
  return [
    `SQL statements per step: ${perStep('sql')} (${total('sql')} per checkout)`,
    `  round trips to PostgreSQL: ${perStep('trips')} (${total('trips')} per checkout; pipelined statements share one)`,
    `  Redis commands: ${perStep('redis')}`
  ].join('\n');
}
