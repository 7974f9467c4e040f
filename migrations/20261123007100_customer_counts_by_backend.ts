import type { Knex } from 'knex';

/**
 * The customer-count trigger picks its shard by backend (connection) instead of at random. With
 * random shards, concurrent subscribes of one store met on the same shard row about one time in
 * sixteen per pair and waited for each other's commit (WAL flush included); a pool's connections
 * now each keep to their own row (64 shards: a pool's connections have consecutive pids). The function is otherwise 20261123006700's, restated because a
 * migration is a snapshot.
 */
const APPLY = (shard: string) => `
CREATE OR REPLACE FUNCTION store_customer_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s smallint := ${shard};
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
    INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
    SELECT store_id, s, count(*), count(*) FILTER (WHERE email_marketing = 'subscribed') FROM new_rows GROUP BY store_id
    ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
  ELSIF TG_OP = 'DELETE' THEN
    -- A shard may go negative; only the sum of a store's shards means anything.
    INSERT INTO store_customer_counts AS c (store_id, shard, customers, subscribers)
    SELECT store_id, s, -count(*), -count(*) FILTER (WHERE email_marketing = 'subscribed') FROM old_rows GROUP BY store_id
    ON CONFLICT (store_id, shard) DO UPDATE SET customers = c.customers + excluded.customers, subscribers = c.subscribers + excluded.subscribers;
  ELSE
    IF NOT EXISTS (
      SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE o.store_id IS DISTINCT FROM n.store_id OR o.email_marketing IS DISTINCT FROM n.email_marketing
    ) THEN RETURN NULL; END IF;
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
  await knex.raw(APPLY('(pg_backend_pid() % 64)::smallint'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(APPLY('floor(random() * 16)::smallint'));
}
