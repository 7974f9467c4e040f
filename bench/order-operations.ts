import { benchSql, checkoutStore, type CheckoutStore } from './lib/bench-store.js';
import { cpuPerUnit, cpuSnapshot } from './lib/cpu-time.js';
import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer, type BenchServer } from './lib/http.js';
import { adminThroughput } from './lib/admin-throughput.js';
import { printStats, runShoppers } from './lib/shoppers.js';

/**
 * Issue 24 bench: refund and cancel throughput on one store (each request a different order), and
 * the cost of the timeline on the checkout path: checkouts/s with the `orders_placed_event`
 * trigger (the "placed" timeline row each order insert writes) on and off, alternated.
 */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 50);
const DURATION_MS = Number(process.env.BENCH_DURATION ?? 8) * 1000;
const CONCURRENCY = 20;

/** POSTs `bodyOf()` to `pathOf(orderId)` for every order, CONCURRENCY at a time over keep-alive connections; prints ops/s. */
const throughput = (server: BenchServer, store: CheckoutStore, label: string, orderIds: string[], pathOf: (id: string) => string, bodyOf: () => unknown) =>
  adminThroughput(server, store, label, orderIds, { pathOf, bodyOf, concurrency: CONCURRENCY });

async function checkoutRound(server: BenchServer, store: CheckoutStore, label: string) {
  const before = cpuSnapshot(server.pid, server.database);
  const stats = await runShoppers({ api: server.api, storefrontToken: store.storefrontToken, shippingMethodId: store.shippingMethodId, variantIds: store.variantIds, shoppers: SHOPPERS, durationMs: DURATION_MS });
  const after = cpuSnapshot(server.pid, server.database);
  const perSec = printStats(label, stats);
  console.log(`  ${cpuPerUnit(before, after, stats.completed, 'checkout')}`);
  return perSec;
}

export async function run(): Promise<void> {
  console.log(`\n# order operations: refunds/s and cancels/s on one store (${CONCURRENCY} concurrent admin requests); checkouts/s with and without the timeline write`);
  const databaseUrl = await freshBenchDatabase('order_ops');
  const server = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-order-ops-${process.pid}` });
  try {
    const store = await checkoutStore(server.api, databaseUrl, 'bench-order-ops');
    // Orders to work on, placed by real checkouts (manual payment: pending).
    await runShoppers({ api: server.api, storefrontToken: store.storefrontToken, shippingMethodId: store.shippingMethodId, variantIds: store.variantIds, shoppers: SHOPPERS, durationMs: 2_000 });
    await benchSql(databaseUrl, 'ANALYZE');
    const none = [] as number[];
    const timeline = [] as number[];
    for (let round = 0; round < 2; round++) {
      timeline.push(await checkoutRound(server, store, `checkout with the timeline (round ${round + 1})`));
      await benchSql(databaseUrl, 'ALTER TABLE orders DISABLE TRIGGER orders_placed_event');
      none.push(await checkoutRound(server, store, `checkout without the timeline write (round ${round + 1})`));
      await benchSql(databaseUrl, 'ALTER TABLE orders ENABLE TRIGGER orders_placed_event');
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    console.log(`timeline cost on checkout: ${mean(timeline).toFixed(0)} vs ${mean(none).toFixed(0)} checkouts/s without it (${((mean(timeline) / mean(none) - 1) * 100).toFixed(1)}%; target within 5%)`);

    const orders = await benchSql<{ id: string }>(databaseUrl, `select id from orders where store_id = $1 and payment_status = 'pending' order by random() limit 3000`, [store.storeId]);
    const ids = orders.map((o) => o.id);
    const toRefund = ids.slice(0, 1000);
    const toCancel = ids.slice(1000, 2000);
    await throughput(server, store, 'mark paid', toRefund, (id) => `/admin/orders/${id}/mark-paid`, () => ({ reference: 'bench' }));
    await throughput(server, store, 'partial refunds (amount 100, manual)', toRefund, (id) => `/admin/orders/${id}/refunds`, () => ({ amount: 100, reason: 'bench', notifyCustomer: false }));
    await throughput(server, store, 'a second partial refund of the same orders', toRefund, (id) => `/admin/orders/${id}/refunds`, () => ({ amount: 100, reason: 'bench again', notifyCustomer: false }));
    await throughput(server, store, 'cancels (restock, customer emailed)', toCancel, (id) => `/admin/orders/${id}/cancel`, () => ({ reason: 'bench' }));
    const [counts] = await benchSql<{ refunds: string; cancelled: string }>(
      databaseUrl,
      `select (select count(*) from order_refunds where store_id = $1) as refunds, (select count(*) from orders where store_id = $1 and status = 'cancelled') as cancelled`,
      [store.storeId]
    );
    console.log(`  recorded: ${counts!.refunds} refunds, ${counts!.cancelled} cancelled orders`);
  } finally {
    await server.stop();
  }
}
