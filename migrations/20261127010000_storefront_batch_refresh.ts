import type { Knex } from 'knex';

/**
 * Storefront documents for batch writers (issue #33: product CSV import, bulk edits).
 *
 * - `refresh_storefront_products` runs with `jit = off`. Its UPDATE joined the rebuilt documents
 *   with the whole `storefront_products` table; on a table growing through an import (statistics
 *   behind) the planner's estimate crossed `jit_above_cost` and PostgreSQL spent about four seconds
 *   compiling each refresh of 250 products (measured on the bench: 4.2 of 4.5 s). The UPDATE now
 *   names the ids on `storefront_products` as well, so it reads only the rows it writes, and builds
 *   each document once (it was built for the comparison and again for the new value).
 * - A product without a document yet (created in this transaction) gets its document in one
 *   INSERT with the text, instead of an empty row inserted, locked and then updated.
 * - Deferral: a transaction that sets `shopwright.storefront_refresh = 'deferred'` (SET LOCAL) and
 *   has the session's temp table `storefront_refresh_pending` collects the ids the triggers ask for
 *   instead of rebuilding at every statement, and `flush_storefront_refresh()` rebuilds each of them
 *   once, before the commit. A batch that inserts products, then variants, then images rebuilds each
 *   document once instead of three times. The triggers still decide which products need a rebuild,
 *   so a batch writer cannot forget one; it must only flush (services/catalog/storefront-refresh.ts
 *   does both). Every other writer is unchanged: a document is never older than the rows it shows
 *   once the writing transaction commits.
 */
const DEFER = `IF current_setting('shopwright.storefront_refresh', true) = 'deferred' THEN
      INSERT INTO storefront_refresh_pending (product_id) SELECT DISTINCT unnest(ids) ON CONFLICT DO NOTHING;
      RETURN;
    END IF;`;

const REFRESH = `
  CREATE OR REPLACE FUNCTION refresh_storefront_products(ids uuid[]) RETURNS void
    LANGUAGE plpgsql SET jit = off AS $$
  DECLARE
    written uuid[];
  BEGIN
    IF ids IS NULL OR cardinality(ids) = 0 THEN
      RETURN;
    END IF;
    ${DEFER}
    -- Products without a document yet (created in this transaction, which no other can see):
    -- built and written once, with their text.
    WITH fresh AS (
      SELECT p.store_id, p.id FROM products p
       WHERE p.id = ANY(ids) AND NOT EXISTS (SELECT 1 FROM storefront_products s WHERE s.product_id = p.id AND s.store_id = p.store_id)
    ), inserted AS (
      INSERT INTO storefront_products (store_id, product_id, document)
        SELECT f.store_id, d.product_id, d.document
          FROM storefront_product_documents(ARRAY(SELECT id FROM fresh)) d JOIN fresh f ON f.id = d.product_id
         ORDER BY d.product_id
        ON CONFLICT (product_id, store_id) DO NOTHING
        RETURNING product_id
    )
    SELECT array_agg(product_id) INTO written FROM inserted;
    IF written IS NOT NULL THEN
      ids := ARRAY(SELECT unnest(ids) EXCEPT SELECT unnest(written));
      IF cardinality(ids) = 0 THEN
        RETURN;
      END IF;
    END IF;
    PERFORM 1 FROM storefront_products s WHERE s.product_id = ANY(ids) ORDER BY s.product_id FOR UPDATE;
    -- A new statement: a new snapshot, taken after the locks were granted. Each document is built
    -- once (MATERIALIZED), not once for the comparison and again for the new value.
    WITH d AS MATERIALIZED (SELECT * FROM storefront_product_documents(ids))
    UPDATE storefront_products s SET document = d.document
      FROM d
     WHERE s.product_id = ANY(ids) AND s.product_id = d.product_id AND s.document IS DISTINCT FROM d.document;
  END $$`;

/** The function as migration 20261125014000 left it. */
const PREVIOUS_REFRESH = `
  CREATE OR REPLACE FUNCTION refresh_storefront_products(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF ids IS NULL OR cardinality(ids) = 0 THEN
        RETURN;
      END IF;
      INSERT INTO storefront_products (store_id, product_id, document)
        SELECT p.store_id, p.id, '' FROM products p WHERE p.id = ANY(ids) ORDER BY p.id
        ON CONFLICT (product_id, store_id) DO NOTHING;
      PERFORM 1 FROM storefront_products s WHERE s.product_id = ANY(ids) ORDER BY s.product_id FOR UPDATE;
      -- A new statement: a new snapshot, taken after the locks were granted.
      UPDATE storefront_products s SET document = d.document
        FROM storefront_product_documents(ids) d
       WHERE s.product_id = d.product_id AND s.document IS DISTINCT FROM d.document;
    END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(REFRESH);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION flush_storefront_refresh() RETURNS integer
      LANGUAGE plpgsql SET jit = off AS $$
    DECLARE
      ids uuid[];
    BEGIN
      PERFORM set_config('shopwright.storefront_refresh', '', true);
      SELECT array_agg(product_id ORDER BY product_id) INTO ids FROM storefront_refresh_pending;
      DELETE FROM storefront_refresh_pending;
      PERFORM refresh_storefront_products(ids);
      RETURN coalesce(cardinality(ids), 0);
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS flush_storefront_refresh()');
  await knex.raw(PREVIOUS_REFRESH);
}
