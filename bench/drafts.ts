import { benchSql, checkoutStore, type CheckoutStore } from './lib/bench-store.js';
import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer, type BenchServer } from './lib/http.js';
import { adminThroughput } from './lib/admin-throughput.js';
import { draftsRoundTrips, formatDraftsRoundTrips } from './lib/drafts-round-trips.js';

/**
 * Issue 35 bench: draft orders created, completed (mark_paid: stock held, order made) and order
 * edits committed (a line added, the difference marked collected) per second on one store, each
 * request a different draft or order, beside the bare route of the same run (GET of a draft: auth,
 * one indexed read, the envelope). Target: >= 100/s each on two cores.
 */
const COUNT = Number(process.env.BENCH_DRAFTS ?? 600);
const CONCURRENCY = 20;
const ADDRESS = { firstName: 'Bench', lastName: 'Caller', line1: '1 Bench St', city: 'Benchville', postalCode: '12345', country: 'US' };

const throughput = (server: BenchServer, store: CheckoutStore, label: string, ids: string[], method: string, pathOf: (id: string) => string, bodyOf: (id: string) => unknown) =>
  adminThroughput(server, store, label, ids, { method, pathOf, bodyOf, concurrency: CONCURRENCY });

export async function run(): Promise<void> {
  console.log(`\n# drafts: draft orders created and completed, order edits committed per second (${CONCURRENCY} concurrent admin requests), beside the bare route`);
  const databaseUrl = await freshBenchDatabase('drafts');
  const server = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-drafts-${process.pid}` });
  try {
    const store = await checkoutStore(server.api, databaseUrl, 'bench-drafts');
    const variant = (n: number) => store.variantIds[n % store.variantIds.length]!;
    const slots = Array.from({ length: COUNT }, (_, i) => String(i + 1));
    await throughput(server, store, 'drafts created', slots, 'POST', () => '/admin/draft-orders', (slot) => ({
      email: `caller${slot}@bench.example`,
      lines: [{ variantId: variant(Number(slot)), quantity: 1 }, { title: 'Gift wrap', price: 300, quantity: 1 }],
      shippingAddress: ADDRESS,
      shippingRateId: store.shippingMethodId
    }));
    await benchSql(databaseUrl, 'ANALYZE');
    const drafts = (await benchSql<{ id: string }>(databaseUrl, `select id from draft_orders where store_id = $1 order by created_at`, [store.storeId])).map((row) => row.id);
    const bare = await throughput(server, store, 'bare route (GET a draft)', drafts, 'GET', (id) => `/admin/draft-orders/${id}`, () => undefined);
    const completed = await throughput(server, store, 'draft completions (mark_paid)', drafts, 'POST', (id) => `/admin/draft-orders/${id}/complete`, () => ({ payment: 'mark_paid' }));
    const orders = (await benchSql<{ id: string }>(databaseUrl, `select order_id as id from draft_orders where store_id = $1 and order_id is not null`, [store.storeId])).map((row) => row.id);
    let n = 0;
    const edits = await throughput(server, store, 'order edit commits (a line added, collected)', orders, 'POST', (id) => `/admin/orders/${id}/edits`, () => ({
      add: [{ variantId: variant((n += 7)), quantity: 1 }],
      collect: 'mark_paid'
    }));
    console.log(`  completions ${completed.toFixed(0)}/s and edits ${edits.toFixed(0)}/s beside the bare route's ${bare.toFixed(0)}/s (target >= 100/s each)`);
  } finally {
    await server.stop();
  }
  // Statements per operation: a count, steady however busy the machine is.
  console.log(formatDraftsRoundTrips(await draftsRoundTrips()));
}
