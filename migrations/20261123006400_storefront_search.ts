import type { Knex } from 'knex';

/**
 * The storefront's search rows: one narrow row per active product (id, store, search vector), kept
 * by triggers in the same transaction as every write to products, whoever writes them. A relevance
 * search ranks every match, so it visits one heap row per match: on products that row is the whole
 * product (about 290 bytes, 27 a page), here about 150 (53 a page). For `linen shirt` on the bench
 * catalog (400 matches of 10,000) that is 190 pages instead of 370, and the PostgreSQL CPU of the
 * search drops by about a quarter. Sort keys and filter columns are left out on purpose: with them a
 * row was 37 a page and the search saved half as much; the searches that need them (another sort,
 * a tag, a price range) read products as before.
 *
 * - Only active products have a row, so a search needs no status filter.
 * - Rows are written from the triggers' transition tables, not re-read, so the last writer of a
 *   product (who holds its row lock until commit) also writes its search row last. Deleting a product
 *   deletes its row by the foreign key. Variant and stock writes never touch this table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(String.raw`
    CREATE TABLE storefront_search (
      id uuid PRIMARY KEY REFERENCES products(id) ON DELETE CASCADE,
      store_id uuid NOT NULL,
      search tsvector NOT NULL
    );
    -- No pending list: every search would scan it whole until a vacuum merges it, and storefront
    -- searches far outnumber product writes.
    CREATE INDEX storefront_search_idx ON storefront_search USING gin (search) WITH (fastupdate = off);

    CREATE FUNCTION storefront_search_from_products() RETURNS trigger
      LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        DELETE FROM storefront_search s USING new_rows n
         WHERE s.id = n.id AND n.status <> 'active';
        INSERT INTO storefront_search (id, store_id, search)
          SELECT n.id, n.store_id, n.search
            FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE n.status = 'active' AND (o.status, o.store_id, o.search) IS DISTINCT FROM (n.status, n.store_id, n.search)
           ORDER BY n.id
        ON CONFLICT (id) DO UPDATE SET store_id = excluded.store_id, search = excluded.search;
      ELSE
        INSERT INTO storefront_search (id, store_id, search)
          SELECT n.id, n.store_id, n.search FROM new_rows n WHERE n.status = 'active' ORDER BY n.id;
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER storefront_search_insert AFTER INSERT ON products
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_search_from_products();
    CREATE TRIGGER storefront_search_update AFTER UPDATE ON products
      REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_search_from_products();

    INSERT INTO storefront_search (id, store_id, search)
      SELECT id, store_id, search FROM products WHERE status = 'active';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS storefront_search_insert ON products;
    DROP TRIGGER IF EXISTS storefront_search_update ON products;
    DROP FUNCTION IF EXISTS storefront_search_from_products();
    DROP TABLE IF EXISTS storefront_search;
  `);
}
