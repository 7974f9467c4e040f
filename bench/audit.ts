import { benchSql, checkoutStore } from './lib/bench-store.js';
import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer, type BenchServer } from './lib/http.js';
import { KeepAliveConnection } from './lib/keep-alive-client.js';
import { percentile, printStats, runShoppers } from './lib/shoppers.js';

/**
 * Issue 36 bench: checkouts/s and product updates/s with the audit log on, beside the same run
 * with it off (a second server process started with BENCH_AUDIT_OFF=true, the bench-only switch
 * in config.ts), on one database and one store, rounds alternated so the machine's load drifts
 * over both alike. Target: within 5%.
 */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 50);
const DURATION_MS = Number(process.env.BENCH_DURATION ?? 8) * 1000;
const CONCURRENCY = 20;
const UPDATES = Number(process.env.BENCH_AUDIT_UPDATES ?? 2000);

async function productUpdates(server: BenchServer, headers: Record<string, string>, productIds: string[], label: string): Promise<number> {
  const origin = new URL(server.api);
  const connections = Array.from({ length: CONCURRENCY }, () => new KeepAliveConnection(origin, { 'content-type': 'application/json', ...headers }));
  await Promise.all(connections.map((connection) => connection.open()));
  let n = 0;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const started = Date.now();
  await Promise.all(
    connections.map(async (connection) => {
      for (let i = n++; i < UPDATES; i = n++) {
        const at = performance.now();
        const id = productIds[i % productIds.length]!;
        const response = await connection.post(`/api/v1/admin/products/${id}`, JSON.stringify({ description: `bench ${i}` }), 'PATCH');
        latencies.push(performance.now() - at);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
      connection.close();
    })
  );
  const perSec = (UPDATES / (Date.now() - started)) * 1000;
  console.log(`${label}: ${perSec.toFixed(0)}/s, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  return perSec;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export async function run(): Promise<void> {
  console.log(`\n# audit log: checkouts/s and product updates/s (${CONCURRENCY} concurrent, one store) with the audit log on vs off`);
  const databaseUrl = await freshBenchDatabase('audit');
  const on = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-audit-on-${process.pid}` });
  const off = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-audit-off-${process.pid}`, BENCH_AUDIT_OFF: 'true' });
  try {
    const store = await checkoutStore(on.api, databaseUrl, 'bench-audit');
    const productIds = (await benchSql<{ id: string }>(databaseUrl, 'select id from products where store_id = $1', [store.storeId])).map((row) => row.id);
    await benchSql(databaseUrl, 'ANALYZE');
    const results = { checkoutOn: [] as number[], checkoutOff: [] as number[], updatesOn: [] as number[], updatesOff: [] as number[] };
    for (let round = 1; round <= 2; round++) {
      for (const [server, which] of [[on, 'On'], [off, 'Off']] as const) {
        const stats = await runShoppers({ api: server.api, storefrontToken: store.storefrontToken, shippingMethodId: store.shippingMethodId, variantIds: store.variantIds, shoppers: SHOPPERS, durationMs: DURATION_MS });
        results[`checkout${which}`].push(printStats(`checkout, audit ${which.toLowerCase()} (round ${round})`, stats));
        results[`updates${which}`].push(await productUpdates(server, store.adminHeaders, productIds, `product updates, audit ${which.toLowerCase()} (round ${round})`));
      }
    }
    const entries = await benchSql<{ n: string }>(databaseUrl, 'select count(*) as n from audit_log where store_id = $1', [store.storeId]);
    const pct = (a: number[], b: number[]) => `${((mean(a) / mean(b) - 1) * 100).toFixed(1)}%`;
    console.log(`checkout: ${mean(results.checkoutOn).toFixed(0)}/s with the audit log vs ${mean(results.checkoutOff).toFixed(0)}/s without (${pct(results.checkoutOn, results.checkoutOff)}; target within 5%)`);
    console.log(`product updates: ${mean(results.updatesOn).toFixed(0)}/s with the audit log vs ${mean(results.updatesOff).toFixed(0)}/s without (${pct(results.updatesOn, results.updatesOff)}; target within 5%); ${entries[0]?.n} entries written`);
  } finally {
    await on.stop();
    await off.stop();
  }
}
