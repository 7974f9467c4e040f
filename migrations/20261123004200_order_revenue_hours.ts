import type { Knex } from 'knex';

/**
 * The dashboard's 30-day revenue from hourly buckets kept by statement-level triggers on orders,
 * instead of summing a month of orders (tens of thousands of rows) on every dashboard read.
 *
 * - A bucket holds the total of a store's orders created in that hour that count as revenue
 *   (payment not refunded or failed). Inserts, deletes and updates that change total, payment
 *   status, store or creation time move the amounts between buckets; other updates touch nothing.
 * - Orders are created under the store's order-counter row lock, so the bucket row adds no new
 *   contention on the order path.
 * - The reader sums whole hours inside the window and the few orders of the partial hour at its
 *   start exactly (see services/orders/module.ts), so the figure is exact, not hour-rounded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE store_revenue_hours (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      hour timestamptz NOT NULL,
      revenue bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, hour)
    );

    CREATE FUNCTION store_revenue_hours_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO store_revenue_hours AS r (store_id, hour, revenue)
        SELECT store_id, date_trunc('hour', created_at), sum(total) FROM new_rows
         WHERE payment_status NOT IN ('refunded', 'failed') GROUP BY 1, 2
        ON CONFLICT (store_id, hour) DO UPDATE SET revenue = r.revenue + excluded.revenue;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO store_revenue_hours AS r (store_id, hour, revenue)
        SELECT store_id, date_trunc('hour', created_at), -sum(total) FROM old_rows
         WHERE payment_status NOT IN ('refunded', 'failed') GROUP BY 1, 2
        ON CONFLICT (store_id, hour) DO UPDATE SET revenue = r.revenue + excluded.revenue;
      ELSE
        INSERT INTO store_revenue_hours AS r (store_id, hour, revenue)
        SELECT store_id, hour, sum(amount) FROM (
          SELECT n.store_id, date_trunc('hour', n.created_at) AS hour,
                 CASE WHEN n.payment_status NOT IN ('refunded', 'failed') THEN n.total ELSE 0 END AS amount
            FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE (o.total, o.payment_status, o.store_id, o.created_at) IS DISTINCT FROM (n.total, n.payment_status, n.store_id, n.created_at)
          UNION ALL
          SELECT o.store_id, date_trunc('hour', o.created_at),
                 CASE WHEN o.payment_status NOT IN ('refunded', 'failed') THEN -o.total ELSE 0 END
            FROM old_rows o JOIN new_rows n ON n.id = o.id
           WHERE (o.total, o.payment_status, o.store_id, o.created_at) IS DISTINCT FROM (n.total, n.payment_status, n.store_id, n.created_at)
        ) delta
        GROUP BY store_id, hour
        HAVING sum(amount) <> 0
        ON CONFLICT (store_id, hour) DO UPDATE SET revenue = r.revenue + excluded.revenue;
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER orders_revenue_insert AFTER INSERT ON orders
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_revenue_hours_apply();
    CREATE TRIGGER orders_revenue_delete AFTER DELETE ON orders
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION store_revenue_hours_apply();
    CREATE TRIGGER orders_revenue_update AFTER UPDATE ON orders
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION store_revenue_hours_apply();

    INSERT INTO store_revenue_hours (store_id, hour, revenue)
    SELECT store_id, date_trunc('hour', created_at), sum(total) FROM orders
     WHERE payment_status NOT IN ('refunded', 'failed') GROUP BY 1, 2;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS orders_revenue_insert ON orders;
    DROP TRIGGER IF EXISTS orders_revenue_delete ON orders;
    DROP TRIGGER IF EXISTS orders_revenue_update ON orders;
    DROP FUNCTION IF EXISTS store_revenue_hours_apply();
    DROP TABLE IF EXISTS store_revenue_hours;
  `);
}
