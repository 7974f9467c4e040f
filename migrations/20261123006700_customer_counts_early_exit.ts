import type { Knex } from 'knex';

/**
 * The customer-count trigger returns at once when a statement changed no count: an upsert that
 * found its customer (new_rows of the INSERT trigger is empty) or an update that moved no customer
 * between stores or marketing states (a checkout counting an order). Every confirm runs both
 * triggers; the full delta query and its empty upsert took about 0.15 ms of PostgreSQL's time per
 * checkout for nothing. The counting itself is unchanged (20261123004100_customer_counts).
 */
/** Also used by 20261123007100, which changes only how the shard is chosen. */
export const customerCountsFunction = (earlyExit: boolean, shard = 'floor(random() * 16)::smallint') => `
CREATE OR REPLACE FUNCTION store_customer_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s smallint := ${shard};
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${earlyExit ? 'IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;' : ''}
    INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
    SELECT store_id, s, count(*), count(*) FILTER (WHERE email_marketing = 'subscribed') FROM new_rows GROUP BY store_id
    ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
  ELSIF TG_OP = 'DELETE' THEN
    -- A shard may go negative; only the sum of a store's shards means anything.
    INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
    SELECT store_id, s, -count(*), -count(*) FILTER (WHERE email_marketing = 'subscribed') FROM old_rows GROUP BY store_id
    ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
  ELSE
    ${
      earlyExit
        ? `IF NOT EXISTS (
      SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE o.store_id IS DISTINCT FROM n.store_id OR o.email_marketing IS DISTINCT FROM n.email_marketing
    ) THEN RETURN NULL; END IF;`
        : ''
    }
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
END $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(customerCountsFunction(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(customerCountsFunction(false));
}
