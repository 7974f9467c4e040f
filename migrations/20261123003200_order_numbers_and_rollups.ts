import type { Knex } from 'knex';

/**
 * Checkout at scale: a store's checkouts must not all queue on one row held until commit.
 *
 * - Order numbers move from `store_order_counters` (one row per store, locked until the order's
 *   commit: one order per WAL flush per store) to a PostgreSQL sequence per store,
 *   `order_numbers_<store id without dashes>`, created here for stores that have orders (continuing
 *   after their highest number) and by services/orders/order-numbers.ts for a store's first order.
 * - `store_daily_revenue` keeps orders and revenue per store and UTC day in 16 shards (each order
 *   adds to a random one), so the dashboard reads a few hundred rows instead of every order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE store_daily_revenue (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      day date NOT NULL,
      shard smallint NOT NULL,
      revenue bigint NOT NULL DEFAULT 0,
      orders integer NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, day, shard)
    );

    INSERT INTO store_daily_revenue (store_id, day, shard, revenue, orders)
    SELECT store_id, (created_at AT TIME ZONE 'UTC')::date, 0,
           coalesce(sum(total) FILTER (WHERE payment_status NOT IN ('refunded', 'failed')), 0), count(*)
      FROM orders
     GROUP BY 1, 2;

    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT store_id, max(number) AS last FROM orders GROUP BY store_id LOOP
        EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I AS integer START %s',
                       'order_numbers_' || replace(r.store_id::text, '-', ''), greatest(r.last + 1, 1001));
      END LOOP;
    END $$;

    DROP TABLE store_order_counters;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE store_order_counters (
      store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
      last_number integer NOT NULL
    );
    INSERT INTO store_order_counters (store_id, last_number) SELECT store_id, max(number) FROM orders GROUP BY store_id;

    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE 'order_numbers_%' LOOP
        EXECUTE format('DROP SEQUENCE IF EXISTS %I', r.relname);
      END LOOP;
    END $$;

    DROP TABLE IF EXISTS store_daily_revenue;
  `);
}
