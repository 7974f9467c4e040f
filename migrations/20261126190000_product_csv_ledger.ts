import type { Knex } from 'knex';

/**
 * Issue #33: products that round-trip Shopify's product CSV, and an inventory ledger that explains
 * every unit of stock.
 *
 * - `products.csv_fields` / `product_variants.csv_fields`: Shopify's columns that Shopwright keeps
 *   but does not act on (vendor, type, category, published; grams, weight unit, barcode, taxable,
 *   requires shipping, cost, variant image), so an export gives back what an import was given.
 * - `media.source_url`: where an imported image was fetched from; a second import of the same file
 *   finds it instead of fetching it again, and the export writes it back.
 * - `inventory_ledger`: `reason_code` (sale, cancel, refund, return, manual, import, bulk, sync), the
 *   actor, and the order or job that caused the move (`reason` stays the free-text note). Rows
 *   written before this are classified from their note; a variant whose stock the ledger did not
 *   explain (stock given at creation, synced stock) gets one opening row, so from here on the sum of
 *   a variant's deltas is its `inventory_quantity`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE products ADD COLUMN csv_fields jsonb NOT NULL DEFAULT '{}';
    ALTER TABLE product_variants ADD COLUMN csv_fields jsonb NOT NULL DEFAULT '{}';
    ALTER TABLE media ADD COLUMN source_url text;
    CREATE INDEX media_store_source_idx ON media (store_id, source_url) WHERE source_url IS NOT NULL;

    ALTER TABLE inventory_ledger ALTER COLUMN created_at TYPE timestamptz(3);
    ALTER TABLE inventory_ledger
      ADD COLUMN reason_code text NOT NULL DEFAULT 'manual'
        CHECK (reason_code IN ('sale', 'cancel', 'refund', 'return', 'manual', 'import', 'bulk', 'sync')),
      ADD COLUMN actor text NOT NULL DEFAULT 'system' CHECK (actor IN ('user', 'system', 'customer', 'job')),
      ADD COLUMN order_id uuid,
      ADD COLUMN job_id uuid,
      ADD COLUMN reference text;
    UPDATE inventory_ledger SET
      reason_code = CASE
        WHEN reason LIKE 'checkout % reserved' THEN 'sale'
        WHEN reason LIKE 'checkout % released' OR reason LIKE 'order #% cancelled%' THEN 'cancel'
        WHEN reason LIKE 'order #% refunded' THEN 'refund'
        WHEN reason LIKE 'return%' THEN 'return'
        ELSE 'manual' END,
      actor = CASE WHEN user_id IS NOT NULL THEN 'user' WHEN reason LIKE 'checkout %' THEN 'customer' ELSE 'system' END;
    INSERT INTO inventory_ledger (store_id, variant_id, delta, reason, reason_code, actor, quantity_after)
    SELECT v.store_id, v.id, v.inventory_quantity - coalesce(l.total, 0), 'opening balance', 'manual', 'system', v.inventory_quantity
      FROM product_variants v
      LEFT JOIN (SELECT store_id, variant_id, sum(delta) AS total FROM inventory_ledger GROUP BY store_id, variant_id) l
        ON l.store_id = v.store_id AND l.variant_id = v.id
     WHERE v.inventory_quantity <> coalesce(l.total, 0);
    CREATE INDEX inventory_ledger_history_idx ON inventory_ledger (store_id, variant_id, created_at DESC, id DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS inventory_ledger_history_idx;
    ALTER TABLE inventory_ledger DROP COLUMN reason_code, DROP COLUMN actor, DROP COLUMN order_id, DROP COLUMN job_id, DROP COLUMN reference;
    DROP INDEX IF EXISTS media_store_source_idx;
    ALTER TABLE media DROP COLUMN source_url;
    ALTER TABLE product_variants DROP COLUMN csv_fields;
    ALTER TABLE products DROP COLUMN csv_fields;
  `);
}
