import { KeepAliveConnection } from './keep-alive-client.js';

/**
 * Concurrent shoppers for the checkout benchmark: each runs create cart → add item → shipping
 * method → checkout session → confirm (manual provider) in a loop, timing every step.
 */
export const STEPS = ['cart', 'item', 'shipping', 'session', 'confirm'] as const;
export type Step = (typeof STEPS)[number];

export interface ShopperStats {
  completed: number;
  soldOut: number;
  serverErrors: number;
  otherErrors: number;
  latencies: Record<Step, number[]>;
  elapsedMs: number;
}

const ADDRESS = { firstName: 'Bench', lastName: 'Shopper', line1: '1 Bench St', city: 'Loadville', postalCode: '10001', country: 'US' };

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runShoppers(options: {
  api: string;
  storefrontToken: string;
  shippingMethodId: string;
  variantIds: string[];
  shoppers: number;
  /** Stop after this long, or when `stopWhenSoldOut` and a shopper meets a sold-out variant. */
  durationMs: number;
  stopWhenSoldOut?: boolean;
}): Promise<ShopperStats> {
  const stats: ShopperStats = { completed: 0, soldOut: 0, serverErrors: 0, otherErrors: 0, latencies: { cart: [], item: [], shipping: [], session: [], confirm: [] }, elapsedMs: 0 };
  const headers = { 'content-type': 'application/json', 'x-storefront-token': options.storefrontToken };
  const origin = new URL(options.api);
  const base = '/api/v1/storefront';
  // Each shopper keeps one connection, as a browser would, opened before the clock starts.
  const connections = Array.from({ length: options.shoppers }, () => new KeepAliveConnection(origin, headers));
  await Promise.all(connections.map((connection) => connection.open()));
  const started = Date.now();
  const deadline = started + options.durationMs;
  let stop = false;

  async function step(connection: KeepAliveConnection, name: Step, path: string, body: unknown): Promise<{ status: number; data: any } | null> {
    const at = performance.now();
    const response = await connection.post(path, JSON.stringify(body));
    const payload = JSON.parse(response.body) as { data?: any; error?: { code: string } };
    stats.latencies[name].push(performance.now() - at);
    if (response.status >= 500) stats.serverErrors += 1;
    else if (response.status === 409 && payload.error?.code === 'insufficient_inventory') {
      stats.soldOut += 1;
      if (options.stopWhenSoldOut) stop = true;
    } else if (response.status >= 300) stats.otherErrors += 1;
    return response.status < 300 ? { status: response.status, data: payload.data } : null;
  }

  async function shopper(index: number) {
    const connection = connections[index]!;
    try {
      let round = 0;
      while (!stop && Date.now() < deadline) {
        const variantId = options.variantIds[(index + round * options.shoppers) % options.variantIds.length]!;
        round += 1;
        const cart = await step(connection, 'cart', `${base}/carts`, { email: `shopper${index}@bench.example` });
        if (!cart) continue;
        const cartId = cart.data.cart.id;
        if (!(await step(connection, 'item', `${base}/carts/${cartId}/items`, { variantId, quantity: 1 }))) continue;
        if (!(await step(connection, 'shipping', `${base}/carts/${cartId}/shipping-method`, { shippingMethodId: options.shippingMethodId }))) continue;
        const session = await step(connection, 'session', `${base}/carts/${cartId}/checkout-session`, { email: `shopper${index}@bench.example`, shippingAddress: ADDRESS });
        if (!session) continue;
        if (await step(connection, 'confirm', `${base}/checkout-sessions/${session.data.checkoutSession.id}/confirm`, {})) stats.completed += 1;
      }
    } finally {
      connection.close();
    }
  }

  await Promise.all(Array.from({ length: options.shoppers }, (_, i) => shopper(i)));
  stats.elapsedMs = Date.now() - started;
  return stats;
}

export function printStats(label: string, stats: ShopperStats) {
  const perSec = (stats.completed / stats.elapsedMs) * 1000;
  console.log(`${label}: ${stats.completed} checkouts in ${(stats.elapsedMs / 1000).toFixed(1)} s = ${perSec.toFixed(0)} checkouts/s; sold-out 409s ${stats.soldOut}, 5xx ${stats.serverErrors}, other errors ${stats.otherErrors}`);
  console.log(`  p99 per step (ms): ${STEPS.map((s) => `${s} ${percentile(stats.latencies[s], 99).toFixed(1)}`).join(', ')}`);
  console.log(`  p50 per step (ms): ${STEPS.map((s) => `${s} ${percentile(stats.latencies[s], 50).toFixed(1)}`).join(', ')}`);
  return perSec;
}
