import { loadavg } from 'node:os';
import { benchSql, checkoutStore } from './lib/bench-store.js';
import { cpuMsPerUnit, cpuSnapshot } from './lib/cpu-time.js';
import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer, type BenchServer } from './lib/http.js';
import { KeepAliveConnection } from './lib/keep-alive-client.js';
import { percentile, printStats, runShoppers } from './lib/shoppers.js';

/**
 * Issue 36 bench: checkouts/s and product updates/s with the audit log on, beside the same run
 * with it off (a second server process started with BENCH_AUDIT_OFF=true, the bench-only switch
 * in config.ts), on one database and one store, in BENCH_AUDIT_ROUNDS rounds (default 3) that
 * alternate which side goes first, so the machine's load drifts over both alike; each side's
 * figure is the median of its rounds, and the ratio on/off is printed with the load average
 * before and after (on a shared machine, read the rounds, not only the medians). Target: within 5%.
 *
 * One server runs at a time: each side's server is started for its round (after a short warm-up
 * of its own) and stopped after it. With both alive at once, the side with the log measured 20-35%
 * more CPU per checkout than the side without in some runs, although checkout writes no entry and
 * the same checkouts in one process (`checkout-profile`, BENCH_AUDIT_OFF on and off) cost the same,
 * and two servers both with the log measured alike: the idle server's presence, not the log.
 * Each round also prints the CPU per operation (the server's and its database's PostgreSQL
 * backends'), which moves less with the machine's load than the rate.
 */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 50);
const DURATION_MS = Number(process.env.BENCH_DURATION ?? 8) * 1000;
const CONCURRENCY = 20;
const UPDATES = Number(process.env.BENCH_AUDIT_UPDATES ?? 2000);
const ROUNDS = Number(process.env.BENCH_AUDIT_ROUNDS ?? 3);

/** Server + PostgreSQL CPU ms per operation of `work` (which returns how many it did). */
async function cpuPerOperation<T>(server: BenchServer, work: () => Promise<{ result: T; operations: number }>): Promise<{ result: T; cpuMs: number; split: string }> {
  const before = cpuSnapshot(server.pid, server.database);
  const { result, operations } = await work();
  const cpu = cpuMsPerUnit(before, cpuSnapshot(server.pid, server.database), operations);
  return { result, cpuMs: cpu.serverMs + cpu.postgresMs, split: `server ${cpu.serverMs.toFixed(2)} + PostgreSQL ${cpu.postgresMs.toFixed(2)}` };
}

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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

export async function run(): Promise<void> {
  console.log(`\n# audit log: checkouts/s and product updates/s (${CONCURRENCY} concurrent, one store) with the audit log on vs off, ${ROUNDS} rounds, one server at a time; load average ${load()}`);
  const databaseUrl = await freshBenchDatabase('audit');
  const sideEnv = { On: { REDIS_PREFIX: `swbench-audit-on-${process.pid}` }, Off: { REDIS_PREFIX: `swbench-audit-off-${process.pid}`, BENCH_AUDIT_OFF: 'true' } };
  const setup = await startBenchServer(databaseUrl, sideEnv.On);
  let store: Awaited<ReturnType<typeof checkoutStore>>;
  try {
    store = await checkoutStore(setup.api, databaseUrl, 'bench-audit');
  } finally {
    await setup.stop();
  }
  const productIds = (await benchSql<{ id: string }>(databaseUrl, 'select id from products where store_id = $1', [store.storeId])).map((row) => row.id);
  await benchSql(databaseUrl, 'ANALYZE');
  const results = { checkoutOn: [] as number[], checkoutOff: [] as number[], updatesOn: [] as number[], updatesOff: [] as number[] };
  const cpu = { checkoutOn: [] as number[], checkoutOff: [] as number[], updatesOn: [] as number[], updatesOff: [] as number[] };
  const shop = (server: BenchServer, durationMs: number) =>
    runShoppers({ api: server.api, storefrontToken: store.storefrontToken, shippingMethodId: store.shippingMethodId, variantIds: store.variantIds, shoppers: SHOPPERS, durationMs });
  for (let round = 1; round <= ROUNDS; round++) {
    const sides = ['On', 'Off'] as const;
    for (const which of round % 2 ? sides : [...sides].reverse()) {
      const server = await startBenchServer(databaseUrl, sideEnv[which]);
      try {
        // A fresh process: its own warm-up (JIT, pools, prepared statements), not counted.
        await shop(server, 2_000);
        const checkout = await cpuPerOperation(server, async () => {
          const stats = await shop(server, DURATION_MS);
          return { result: printStats(`checkout, audit ${which.toLowerCase()} (round ${round})`, stats), operations: stats.completed };
        });
        results[`checkout${which}`].push(checkout.result);
        cpu[`checkout${which}`].push(checkout.cpuMs);
        const updates = await cpuPerOperation(server, async () => ({
          result: await productUpdates(server, store.adminHeaders, productIds, `product updates, audit ${which.toLowerCase()} (round ${round})`),
          operations: UPDATES
        }));
        results[`updates${which}`].push(updates.result);
        cpu[`updates${which}`].push(updates.cpuMs);
        console.log(`  CPU: ${checkout.split} ms per checkout, ${updates.split} ms per product update`);
      } finally {
        await server.stop();
      }
    }
  }
  const entries = await benchSql<{ n: string }>(databaseUrl, 'select count(*) as n from audit_log where store_id = $1', [store.storeId]);
  const pending = await benchSql<{ n: string }>(databaseUrl, 'select count(*) as n from audit_pending where store_id = $1', [store.storeId]);
  const ratio = (a: number[], b: number[]) => `on/off ${(median(a) / median(b)).toFixed(3)} (${((median(a) / median(b) - 1) * 100).toFixed(1)}%)`;
  const rounds = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
  const cpuRatio = (a: number[], b: number[]) => `${median(a).toFixed(2)} vs ${median(b).toFixed(2)} ms, on/off ${(median(a) / median(b)).toFixed(3)} (${((median(a) / median(b) - 1) * 100).toFixed(1)}%)`;
  console.log(`load average after: ${load()}`);
  console.log(`checkout: median ${median(results.checkoutOn).toFixed(0)}/s with the audit log [${rounds(results.checkoutOn)}] vs ${median(results.checkoutOff).toFixed(0)}/s without [${rounds(results.checkoutOff)}]: ${ratio(results.checkoutOn, results.checkoutOff)}; target within 5%`);
  console.log(`product updates: median ${median(results.updatesOn).toFixed(0)}/s with the audit log [${rounds(results.updatesOn)}] vs ${median(results.updatesOff).toFixed(0)}/s without [${rounds(results.updatesOff)}]: ${ratio(results.updatesOn, results.updatesOff)}; target within 5%; ${entries[0]?.n} entries chained, ${pending[0]?.n} left pending`);
  console.log(`CPU (server + PostgreSQL), medians: per checkout ${cpuRatio(cpu.checkoutOn, cpu.checkoutOff)}; per product update ${cpuRatio(cpu.updatesOn, cpu.updatesOff)}`);
}
