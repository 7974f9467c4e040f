import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer } from './lib/http.js';
import { settle } from './lib/settle.js';
import { printStats, runShoppers } from './lib/shoppers.js';
import { benchApi as api, benchSql as sql } from './lib/bench-store.js';

/**
 * Issue #34: checkout with tax beside today's flat checkout, in the same run on the same server:
 * two stores, one without tax regions (the flat checkout), one with a country and a state tax region
 * (exclusive tax, tax on shipping, a reduced class on half its variants) that every shopper's
 * address matches. Rounds alternate (flat, taxed, flat, taxed) so drift on a shared machine hits
 * both; the target is the taxed checkout within 10 % of the flat one's throughput.
 */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 50);
const DURATION_MS = Number(process.env.BENCH_DURATION ?? 8) * 1000;

async function seedStore(apiUrl: string, databaseUrl: string, slug: string, taxed: boolean) {
  const signup = await api(apiUrl, 'POST', '/auth/signup', {
    firstName: 'Bench', lastName: 'Mark', email: `${slug}@bench.example`, password: 'benchmark-password', storeName: slug, storeSlug: slug
  });
  const headers = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': signup.store.id };
  const settings = await api(apiUrl, 'PATCH', '/admin/store', { manualPaymentsEnabled: true, shippingMethods: [{ name: 'Standard', price: 500 }] }, headers);
  const shippingMethodId = (settings.store ?? settings).shippingMethods[0].id as string;
  const storeId = signup.store.id as string;
  await sql(
    databaseUrl,
    `with p as (insert into products (store_id, title, slug, status, min_price, max_price)
                select $1, 'Bench product ' || g, 'bench-' || g, 'active', 1000 + g, 1000 + g from generate_series(1, 100) g returning id, slug, min_price)
     insert into product_variants (store_id, product_id, sku, title, price, inventory_quantity, tax_class)
     select $1, id, slug, 'Default', min_price, 100000, case when $2 and min_price % 2 = 0 then 'reduced' end from p`,
    [storeId, taxed]
  );
  if (taxed) {
    await api(apiUrl, 'POST', '/admin/tax-regions', { country: 'US', name: 'US tax', rate: 500, taxShipping: true }, headers);
    await api(apiUrl, 'POST', '/admin/tax-regions', { country: 'US', region: 'US-CA', name: 'CA sales tax', rate: 725, classRates: { reduced: 250 }, taxShipping: true }, headers);
  }
  const variants = await sql<{ id: string }>(databaseUrl, 'select id from product_variants where store_id = $1', [storeId]);
  return { storefrontToken: signup.storefrontToken as string, shippingMethodId, variantIds: variants.map((v) => v.id) };
}

export async function run(): Promise<void> {
  console.log(`\n# checkout with tax vs flat checkout: ${SHOPPERS} concurrent shoppers, alternating rounds of ${DURATION_MS / 1000} s`);
  const databaseUrl = await freshBenchDatabase('checkout_tax');
  const server = await startBenchServer(databaseUrl);
  try {
    const flat = await seedStore(server.api, databaseUrl, 'bench-flat', false);
    const taxed = await seedStore(server.api, databaseUrl, 'bench-taxed', true);
    await settle(1_000);
    for (const store of [flat, taxed]) await runShoppers({ api: server.api, ...store, shoppers: SHOPPERS, durationMs: 2_000 });
    await sql(databaseUrl, 'ANALYZE');
    const totals = { flat: { completed: 0, ms: 0 }, taxed: { completed: 0, ms: 0 } };
    for (let round = 0; round < 2; round++) {
      for (const [name, store] of [['flat', flat], ['taxed', taxed]] as const) {
        const stats = await runShoppers({ api: server.api, ...store, shoppers: SHOPPERS, durationMs: DURATION_MS });
        printStats(`${name} round ${round + 1}`, stats);
        totals[name].completed += stats.completed;
        totals[name].ms += stats.elapsedMs;
      }
    }
    const perSec = (name: 'flat' | 'taxed') => (totals[name].completed / totals[name].ms) * 1000;
    const ratio = perSec('taxed') / perSec('flat');
    const taxRows = await sql<{ n: string }>(databaseUrl, 'select count(*) as n from orders where tax_total > 0');
    console.log(`flat ${perSec('flat').toFixed(0)} checkouts/s, taxed ${perSec('taxed').toFixed(0)} checkouts/s (${(ratio * 100).toFixed(1)}%; ${taxRows[0]!.n} taxed orders)`);
    console.log(`  target: taxed within 10 % of flat (${ratio >= 0.9 ? 'met' : 'MISSED'})`);
  } finally {
    await server.stop();
  }
}
