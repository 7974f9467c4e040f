import type { Knex } from 'knex';

/**
 * The dashboard's customer and subscriber counts, kept by statement-level triggers instead of
 * counting a store's customers on every dashboard read (100,000 rows cost ~50 ms each time).
 *
 * - One row per store; each statement adds its own delta (transition tables, grouped by store), so a
 *   bulk import costs one counter update per statement, not one per row.
 * - An UPDATE touches the counter only when a row's store or marketing state changed: the order path
 *   (orders_count, total_spent) never takes the counter row's lock.
 * - 16 shards per store, each statement adding to a random one: a checkout or a newsletter sign-up
 *   that creates a customer holds one shard's lock until it commits, so new customers of a store are
 *   not created one WAL flush at a time. The dashboard sums the shards.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE store_customer_counts (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      shard smallint NOT NULL,
      customers bigint NOT NULL DEFAULT 0,
      subscribers bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, shard)
    );

    CREATE FUNCTION store_customer_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      s smallint := floor(random() * 16)::smallint;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
        SELECT store_id, s, count(*), count(*) FILTER (WHERE email_marketing = 'subscribed') FROM new_rows GROUP BY store_id
        ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
      ELSIF TG_OP = 'DELETE' THEN
        -- A shard may go negative; only the sum of a store's shards means anything.
        INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
        SELECT store_id, s, -count(*), -count(*) FILTER (WHERE email_marketing = 'subscribed') FROM old_rows GROUP BY store_id
        ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
      ELSE
        INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
        SELECT store_id, s, sum(customers), sum(subscribers) FROM (
          SELECT n.store_id, 1 AS customers, (n.email_marketing = 'subscribed')::int AS subscribers
            FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE o.store_id IS DISTINCT FROM n.store_id OR o.email_marketing IS DISTINCT FROM n.email_marketing
          UNION ALL
          SELECT o.store_id, -1, -((o.email_marketing = 'subscribed')::int)
            FROM old_rows o JOIN new_rows n ON n.id = o.id
           WHERE o.store_id IS DISTINCT FROM n.store_id OR o.email_marketing IS DISTINCT FROM n.email_marketing
        ) delta
        GROUP BY store_id
        HAVING sum(customers) <> 0 OR sum(subscribers) <> 0
        ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER customers_count_insert AFTER INSERT ON customers
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_customer_counts_apply();
    CREATE TRIGGER customers_count_delete AFTER DELETE ON customers
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION store_customer_counts_apply();
    CREATE TRIGGER customers_count_update AFTER UPDATE ON customers
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_customer_counts_apply();

    INSERT INTO store_customer_counts (store_id, shard, customers, subscribers)
    SELECT store_id, 0, count(*), count(*) FILTER (WHERE email_marketing = 'subscribed') FROM customers GROUP BY store_id;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS customers_count_insert ON customers;
    DROP TRIGGER IF EXISTS customers_count_delete ON customers;
    DROP TRIGGER IF EXISTS customers_count_update ON customers;
    DROP FUNCTION IF EXISTS store_customer_counts_apply();
    DROP TABLE IF EXISTS store_customer_counts;
  `);
}
