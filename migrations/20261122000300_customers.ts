import type { Knex } from 'knex';

/**
 * Customers (one row per store and lower(email), whatever created it), their email-marketing consent
 * with the time, source and IP of its last change, and the jobs table that mirrors BullMQ jobs so
 * status, progress, result and error survive the job's removal from Redis.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stores ADD COLUMN allow_import_resubscribe boolean NOT NULL DEFAULT false;

    CREATE TABLE customers (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      email text NOT NULL,
      first_name text,
      last_name text,
      phone text,
      tags text[] NOT NULL DEFAULT '{}',
      note text,
      email_marketing text NOT NULL DEFAULT 'not_subscribed'
        CHECK (email_marketing IN ('subscribed', 'unsubscribed', 'not_subscribed')),
      email_marketing_updated_at timestamptz,
      email_marketing_source text,
      email_marketing_ip text,
      orders_count integer NOT NULL DEFAULT 0,
      total_spent bigint NOT NULL DEFAULT 0,
      last_order_at timestamptz,
      source text,
      external_id text,
      external_updated_at timestamptz,
      -- Millisecond precision: list cursors carry JS dates, and a bulk import gives a whole batch one timestamp.
      created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- One customer per store and email; text_pattern_ops also serves the ?q= email prefix search.
    CREATE UNIQUE INDEX customers_store_email_key ON customers (store_id, lower(email) text_pattern_ops);
    CREATE UNIQUE INDEX customers_store_external_key ON customers (store_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX customers_store_list_idx ON customers (store_id, created_at DESC, id DESC);
    CREATE INDEX customers_store_marketing_idx ON customers (store_id, email_marketing, created_at DESC, id DESC);
    -- ?q= is also a prefix search over first and last name (btree prefix scans, cheap to maintain on bulk imports).
    CREATE INDEX customers_first_name_prefix_idx ON customers (store_id, lower(first_name) text_pattern_ops);
    CREATE INDEX customers_last_name_prefix_idx ON customers (store_id, lower(last_name) text_pattern_ops);
    CREATE INDEX customers_tags_idx ON customers USING gin (tags);

    CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      store_id uuid REFERENCES stores(id) ON DELETE CASCADE,
      type text NOT NULL,
      queue text NOT NULL,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'active', 'completed', 'failed')),
      progress jsonb NOT NULL DEFAULT '{"percent": 0}',
      input jsonb NOT NULL DEFAULT '{}',
      checkpoint jsonb,
      result jsonb,
      error text,
      file_key text,
      attempts integer NOT NULL DEFAULT 0,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX jobs_store_list_idx ON jobs (store_id, created_at DESC, id DESC);
    CREATE INDEX jobs_store_type_idx ON jobs (store_id, type, created_at DESC, id DESC);

    -- Per-row problems of an import job, appended with each batch (the job result lists them).
    CREATE TABLE job_row_errors (
      id bigserial PRIMARY KEY,
      job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
      row_number integer NOT NULL,
      column_name text NOT NULL,
      message text NOT NULL
    );
    CREATE INDEX job_row_errors_job_idx ON job_row_errors (job_id, row_number, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS job_row_errors, jobs, customers CASCADE;
    ALTER TABLE stores DROP COLUMN IF EXISTS allow_import_resubscribe;
  `);
}
