import type { Knex } from 'knex';

/**
 * Platform tables: the transactional outbox (a job intent written in the same transaction as the
 * change that causes it, moved into BullMQ by the relay after commit) and operational issues
 * (problems workers and receivers raise for the store's operator).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE outbox (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      seq bigserial NOT NULL,
      queue text NOT NULL,
      name text NOT NULL,
      -- The BullMQ job id: the row id unless the producer named one (a business key), so a relay
      -- that adds the same row twice (killed between add and delete) never doubles the job.
      job_id text NOT NULL,
      payload jsonb NOT NULL,
      options jsonb NOT NULL DEFAULT '{}',
      run_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX outbox_seq_idx ON outbox (seq);

    -- No NOTIFY trigger: PostgreSQL serialises the commits of notifying transactions on one global
    -- lock, which capped producers at a few hundred commits a second. Producers wake their own
    -- process's relay after commit instead (src/platform/outbox/wake.ts).

    CREATE TABLE store_issues (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      kind text NOT NULL,
      subject text NOT NULL DEFAULT '',
      severity text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
      title text NOT NULL,
      detail text,
      occurrences integer NOT NULL DEFAULT 1,
      first_seen_at timestamptz(3) NOT NULL DEFAULT now(),
      last_seen_at timestamptz(3) NOT NULL DEFAULT now(),
      resolved_at timestamptz(3)
    );
    -- One open issue per kind and subject: a repeat counts an occurrence instead of a new row.
    CREATE UNIQUE INDEX store_issues_open_key ON store_issues (store_id, kind, subject) WHERE resolved_at IS NULL;
    CREATE INDEX store_issues_list_idx ON store_issues (store_id, last_seen_at DESC, id DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS store_issues, outbox CASCADE;
  `);
}
