import pg from 'pg';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { createDb } from '../src/db/knex.js';
import { listStorefrontProducts, type StorefrontProductFilters } from '../src/services/catalog/storefront.js';
import { encodeCursor } from '../src/platform/pagination.js';
import { seedCatalog } from './lib/catalog-seed.js';
import { freshBenchDatabase } from './lib/database.js';

/**
 * Issue 3: EXPLAIN shows no sequential scan over products at 100k rows for the storefront list and
 * search. Captures the exact SQL the service sends (its reads go to a pooled pg client directly, as
 * prepared statements: the capture wraps pg's Client#query for the call) and explains it with the
 * same bindings.
 */
export async function run(): Promise<void> {
  console.log('\n# catalog-explain: storefront list and search plans at 100,000 products (+ 5,000 in another store)');
  const databaseUrl = await freshBenchDatabase('catalog_explain');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const db = createDb(databaseUrl, { max: 2 });
  try {
    const stores = await client.query(`INSERT INTO stores (name, slug) VALUES ('Big', 'big'), ('Small', 'small') RETURNING id`);
    const [big, small] = stores.rows.map((row) => row.id as string);
    await seedCatalog(databaseUrl, small!, 5_000, 1);
    await seedCatalog(databaseUrl, big!, 100_000, 1);
    const deep = await client.query(
      `SELECT created_at, id FROM products WHERE store_id = $1 AND status = 'active' ORDER BY created_at DESC, id DESC OFFSET 90000 LIMIT 1`,
      [big]
    );

    // Explain the database path, not the in-process cache.
    const ctx = { config: loadConfig({ ...process.env, LOG_LEVEL: 'silent', STOREFRONT_CACHE_TTL_MS: '0' }), db } as unknown as AppContext;
    const cases: Array<[string, StorefrontProductFilters, string?]> = [
      ['list newest, page 1', {}],
      ['list newest, after 90,000', {}, encodeCursor(['newest', (deep.rows[0].created_at as Date).toISOString(), deep.rows[0].id])],
      ['list price_asc', { sort: 'price_asc' }],
      ['list title', { sort: 'title' }],
      ['list tag + price range + inStock', { tag: 'home', minPrice: 1200, maxPrice: 1800, inStock: true }],
      ['search q=cedarwood (relevance)', { q: 'cedarwood' }],
      ['search q="linen shirt" sort=newest', { q: 'linen shirt', sort: 'newest' }]
    ];
    let failures = 0;
    for (const [name, filters, cursor] of cases) {
      const captured: Array<{ sql: string; bindings: unknown[] }> = [];
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const config = args[0] as { text?: string; values?: unknown[] } | string;
        if (typeof config === 'object' && config?.text) captured.push({ sql: config.text, bindings: config.values ?? [] });
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await listStorefrontProducts(ctx, big!, filters, { limit: 20, cursor });
      } finally {
        pg.Client.prototype.query = query;
      }
      const main = captured.find((q) => /from (products|storefront_search) p/.test(q.sql));
      if (!main) throw new Error(`no products query captured for ${name}`);
      const plan = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${main.sql}`, main.bindings);
      const lines = plan.rows.map((row) => row['QUERY PLAN'] as string);
      const seqScan = lines.some((line) => /Seq Scan on (products|storefront_search)/.test(line));
      if (seqScan) failures++;
      const execution = lines.find((line) => line.startsWith('Execution Time')) ?? '';
      console.log(`\n## ${name}: ${seqScan ? 'SEQ SCAN ON PRODUCTS (fail)' : 'no seq scan on products'}; ${execution}`);
      for (const line of lines.filter((l) => !/^(Planning|Execution) Time/.test(l)).slice(0, 8)) console.log(`   ${line}`);
    }
    console.log(`\ncatalog-explain: ${failures === 0 ? 'OK, no sequential scan over products' : `${failures} plan(s) scan products sequentially`}`);
    if (failures) process.exitCode = 1;
  } finally {
    await db.destroy();
    await client.end();
  }
}
