import autocannon from 'autocannon';
import { seedCatalog, signupBenchStore } from './lib/catalog-seed.js';
import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer, type BenchServer, type Measurement } from './lib/http.js';
import { settle } from './lib/settle.js';
import { printStats, runShoppers, STEPS, type ShopperStats } from './lib/shoppers.js';
import { benchApi as api, benchSql as sql } from './lib/bench-store.js';

/**
 * Issue 27 part 4: storefront read and checkout throughput with one web process and with two on
 * the same database and Redis (one key prefix), the load split evenly between them, each beside
 * the bare hapi route(s) of the same processes. Printed, not asserted: on this 2-core machine the
 * two processes, PostgreSQL and the load generator share the same cores, so a second process shows
 * what parallelism the host has left, not what a second machine would add.
 */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const REDIS_PREFIX = 'swbench:processes';

/**
 * Like lib/http.ts `measure`, with the connections split evenly over several URLs (one per web
 * process) measured at the same time: req/s summed, p50 and p99 the worst of them.
 */
async function measureSpread(name: string, urls: string[], headers: Record<string, string> = {}): Promise<Measurement> {
  const connections = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  await Promise.all(urls.map((url) => autocannon({ url, headers, connections, duration: 1 })));
  const results = await Promise.all(urls.map((url) => autocannon({ url, headers, connections, duration: DURATION_S })));
  const measurement = {
    name,
    reqPerSec: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0)
  };
  console.log(
    `${name.padEnd(52)} ${String(measurement.reqPerSec).padStart(7)} req/s   p50 ${String(measurement.p50).padStart(4)} ms   p99 ${String(measurement.p99).padStart(4)} ms${measurement.non2xx ? `   non-2xx ${measurement.non2xx}` : ''}`
  );
  return measurement;
}

/** Shoppers split evenly over the web processes, run at the same time; their stats merged. */
async function shopSpread(servers: BenchServer[], shop: { storefrontToken: string; shippingMethodId: string; variantIds: string[] }, durationMs: number): Promise<ShopperStats> {
  const per = Math.max(1, Math.floor(SHOPPERS / servers.length));
  const all = await Promise.all(servers.map((server) => runShoppers({ api: server.api, ...shop, shoppers: per, durationMs })));
  const merged: ShopperStats = { completed: 0, soldOut: 0, serverErrors: 0, otherErrors: 0, latencies: { cart: [], item: [], shipping: [], session: [], confirm: [] }, elapsedMs: 0 };
  for (const stats of all) {
    merged.completed += stats.completed;
    merged.soldOut += stats.soldOut;
    merged.serverErrors += stats.serverErrors;
    merged.otherErrors += stats.otherErrors;
    merged.elapsedMs = Math.max(merged.elapsedMs, stats.elapsedMs);
    for (const step of STEPS) merged.latencies[step].push(...stats.latencies[step]);
  }
  return merged;
}

const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;

export async function run(): Promise<void> {
  console.log(`\n# processes: 1 vs 2 web processes on one database and Redis prefix (${CONNECTIONS} connections, ${SHOPPERS} shoppers, split evenly)`);
  const databaseUrl = await freshBenchDatabase('processes');
  const env = { REDIS_PREFIX };
  const first = await startBenchServer(databaseUrl, env);
  let second: BenchServer | null = null;
  try {
    const signup = await api(first.api, 'POST', '/auth/signup', {
      firstName: 'Bench', lastName: 'Mark', email: 'processes@bench.example', password: 'benchmark-password', storeName: 'Bench', storeSlug: 'bench-processes'
    });
    const storeId = signup.store.id as string;
    const adminHeaders = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': storeId };
    const settings = await api(first.api, 'PATCH', '/admin/store', { manualPaymentsEnabled: true, shippingMethods: [{ name: 'Standard', price: 500 }] }, adminHeaders);
    const shippingMethodId = (settings.store ?? settings).shippingMethods[0].id as string;
    // A browsing catalog (low stock, for reads) and 100 well-stocked variants for checkout.
    await seedCatalog(databaseUrl, storeId, 2_000, 3);
    await sql(
      databaseUrl,
      `with p as (insert into products (store_id, title, slug, status, min_price, max_price)
                  select $1, 'Bench product ' || g, 'bench-' || g, 'active', 1000 + g, 1000 + g from generate_series(1, 100) g returning id, slug, min_price)
       insert into product_variants (store_id, product_id, sku, title, price, inventory_quantity)
       select $1, id, slug, 'Default', min_price, 1000000 from p`,
      [storeId]
    );
    const variantIds = (await sql<{ id: string }>(databaseUrl, `select id from product_variants where store_id = $1 and sku like 'bench-%'`, [storeId])).map((v) => v.id);
    await sql(databaseUrl, 'VACUUM ANALYZE');
    const headers = { 'x-storefront-token': signup.storefrontToken as string };
    const shop = { storefrontToken: signup.storefrontToken as string, shippingMethodId, variantIds };
    const list = (server: BenchServer) => `${server.api}/api/v1/storefront/products?limit=20`;
    const product = (server: BenchServer) => `${server.api}/api/v1/storefront/products/product-1000`;
    await settle(1_000);

    const rows: Array<{ procs: number; bare: Measurement; list: Measurement; product: Measurement; checkouts: number }> = [];
    for (const procs of [1, 2]) {
      if (procs === 2) {
        second = await startBenchServer(databaseUrl, env);
        await settle(1_000);
      }
      const servers = procs === 1 ? [first] : [first, second!];
      console.log(`\n## ${procs} web process${procs === 1 ? '' : 'es'}`);
      const bare = await measureSpread(`GET bare hapi route ×${procs}`, servers.map((s) => s.bare));
      const listed = await measureSpread(`GET /storefront/products (page 1 of 20) ×${procs}`, servers.map(list), headers);
      const read = await measureSpread(`GET /storefront/products/{slug} ×${procs}`, servers.map(product), headers);
      // Warm-up (JIT, pools), not counted.
      await shopSpread(servers, shop, 2_000);
      const stats = await shopSpread(servers, shop, DURATION_S * 1000);
      const perSec = printStats(`checkout ×${procs} (cart -> item -> shipping -> session -> confirm)`, stats);
      const requestsPerSec = ((stats.completed * STEPS.length) / stats.elapsedMs) * 1000;
      console.log(`  ${requestsPerSec.toFixed(0)} checkout requests/s vs ${bare.reqPerSec} req/s on the bare route(s) (${pct(requestsPerSec, bare.reqPerSec)})`);
      console.log(`  storefront list ${pct(listed.reqPerSec, bare.reqPerSec)} of bare, product ${pct(read.reqPerSec, bare.reqPerSec)} of bare`);
      rows.push({ procs, bare, list: listed, product: read, checkouts: perSec });
    }
    const [one, two] = rows as [(typeof rows)[0], (typeof rows)[0]];
    console.log('\n## 2 web processes vs 1 (same machine: 2 cores shared with PostgreSQL and the load generator)');
    console.log(`  bare route   ${one.bare.reqPerSec} -> ${two.bare.reqPerSec} req/s (×${(two.bare.reqPerSec / one.bare.reqPerSec).toFixed(2)})`);
    console.log(`  list page    ${one.list.reqPerSec} -> ${two.list.reqPerSec} req/s (×${(two.list.reqPerSec / one.list.reqPerSec).toFixed(2)})`);
    console.log(`  product      ${one.product.reqPerSec} -> ${two.product.reqPerSec} req/s (×${(two.product.reqPerSec / one.product.reqPerSec).toFixed(2)})`);
    console.log(`  checkouts/s  ${one.checkouts.toFixed(0)} -> ${two.checkouts.toFixed(0)} (×${(two.checkouts / one.checkouts).toFixed(2)})`);
  } finally {
    await second?.stop();
    await first.stop();
  }
}
