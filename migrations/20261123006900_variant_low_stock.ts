import type { Knex } from 'knex';

/**
 * Stock changes become HOT updates. `product_variants_low_stock_idx` indexed inventory_quantity,
 * so every stock move (each checkout session takes one, each release gives one back) wrote a new
 * row version plus an entry in each of the table's indexes, on the most contended rows there are.
 * Now the index holds only low-stock variants, by a stored generated flag: a stock move rewrites
 * an index entry only when the variant crosses the threshold, and with room left on the pages
 * (fillfactor 80) the new row version stays on its page. The dashboard count and the hourly scan
 * read the flag. The threshold (5, LOW_STOCK_THRESHOLD in services/catalog/module.ts) lives in
 * the column's definition: changing it takes a migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE product_variants ADD COLUMN low_stock boolean NOT NULL
      GENERATED ALWAYS AS (inventory_policy = 'deny' AND inventory_quantity <= 5 AND archived_at IS NULL) STORED;
    DROP INDEX IF EXISTS product_variants_low_stock_idx;
    CREATE INDEX product_variants_low_stock_idx ON product_variants (store_id) WHERE low_stock;
    ALTER TABLE product_variants SET (fillfactor = 80);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE product_variants RESET (fillfactor);
    DROP INDEX IF EXISTS product_variants_low_stock_idx;
    ALTER TABLE product_variants DROP COLUMN IF EXISTS low_stock;
    CREATE INDEX product_variants_low_stock_idx ON product_variants (store_id, inventory_policy, inventory_quantity);
  `);
}
