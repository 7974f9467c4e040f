import { createServer } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, openContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { freshBenchDatabase } from './database.js';
import { countStatements } from './statement-counter.js';

const ADDRESS = { firstName: 'Bench', lastName: 'Caller', line1: '1 Bench St', city: 'Benchville', postalCode: '12345', country: 'US' };
export const DRAFT_STEPS = ['create', 'get', 'complete', 'edit'] as const;
type Step = (typeof DRAFT_STEPS)[number];


/**
 * SQL statements (BEGIN and COMMIT included) and round trips to PostgreSQL of one draft created,
 * read, completed (mark_paid) and one order edit committed (a line added, collected), counted
 * in-process on a warm store (the second of two passes). Counts do not depend on how busy the
 * machine is, so they show what a change to these paths did when throughput is noisy. The outbox
 * relay's own reads and deletes are left out. BENCH_TRACE_SQL=1 prints each statement.
 */
export async function draftsRoundTrips(): Promise<Record<Step, { sql: number; trips: number }>> {
  const databaseUrl = await freshBenchDatabase('drafts_round_trips');
  const config = loadConfig({ ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, REDIS_PREFIX: `bench-drafts-trips-${process.pid}` });
  const ctx = createContext(config, { modules: MODULES, dbPoolMax: 4 });
  await openContext(ctx);
  const server = await createServer(ctx, { port: 0 });
  await server.initialize();
  const counter = countStatements();
  try {
    const call = async (method: string, url: string, payload?: object, headers: Record<string, string> = {}) => {
      const response = await server.inject({ method, url: `/api/v1${url}`, payload, headers });
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.payload}`);
      return JSON.parse(response.payload).data;
    };
    const signup = await call('POST', '/auth/signup', { firstName: 'A', lastName: 'B', email: 'drafts-trips@bench.example', password: 'benchmark-password', storeName: 'S', storeSlug: 'bench-drafts-trips' });
    const admin = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': signup.store.id };
    const settings = await call('PATCH', '/admin/store', { manualPaymentsEnabled: true, shippingMethods: [{ name: 'Standard', price: 500 }] }, admin);
    const shippingMethodId = (settings.store ?? settings).shippingMethods[0].id as string;
    const variants: string[] = [];
    for (const sku of ['d1', 'd2']) {
      const product = await call('POST', '/admin/products', { title: sku, status: 'active', variants: [{ sku, title: 'Default', price: 1000, inventoryQuantity: 1000 }] }, admin);
      variants.push(product.product.variants[0].id as string);
    }
    const counts = {} as Record<Step, { sql: number; trips: number }>;
    for (const counted of [false, true]) {
      const step = async (name: Step, run: () => Promise<any>) => {
        await ctx.outbox.drain();
        await new Promise((resolve) => setTimeout(resolve, 50));
        counter.reset();
        counter.counting = counted;
        if (counted && process.env.BENCH_TRACE_SQL) console.log(`# ${name}`);
        const result = await run();
        counter.counting = false;
        counts[name] = { sql: counter.sql, trips: counter.trips };
        return result;
      };
      const created = await step('create', () =>
        call('POST', '/admin/draft-orders', { email: 'caller@bench.example', lines: [{ variantId: variants[0], quantity: 1 }, { title: 'Gift wrap', price: 300, quantity: 1 }], shippingAddress: ADDRESS, shippingRateId: shippingMethodId }, admin)
      );
      const draftId = created.draftOrder.id as string;
      await step('get', () => call('GET', `/admin/draft-orders/${draftId}`, undefined, admin));
      const completed = await step('complete', () => call('POST', `/admin/draft-orders/${draftId}/complete`, { payment: 'mark_paid' }, admin));
      await step('edit', () => call('POST', `/admin/orders/${completed.order.id}/edits`, { add: [{ variantId: variants[1], quantity: 1 }], collect: 'mark_paid' }, admin));
    }
    return counts;
  } finally {
    counter.restore();
    await server.stop();
    await closeContext(ctx);
  }
}

export function formatDraftsRoundTrips(counts: Record<Step, { sql: number; trips: number }>): string {
  return [
    `SQL statements per operation: ${DRAFT_STEPS.map((step) => `${step} ${counts[step].sql}`).join(', ')}`,
    `  round trips to PostgreSQL: ${DRAFT_STEPS.map((step) => `${step} ${counts[step].trips}`).join(', ')} (pipelined statements share one)`
  ].join('\n');
}
