import pg from 'pg';
import { runMigrations } from 'bullmq';
import type { Knex } from 'knex';

/**
 * What Redis holds when there is one, for a deployment without it (REDIS_URL unset): the PostgreSQL
 * adapters' state (src/adapters/) and BullMQ's own schema (`bullmq`, its PostgreSQL queue backend).
 * Unlogged tables: counters and slots are short-lived by nature (as in Redis), and a crash that
 * empties them only resets rate windows, which is what a Redis restart does too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Fixed-window counters (rate limits): one row per bucket and window, expired rows swept.
    CREATE UNLOGGED TABLE backend_counters (
      key text PRIMARY KEY,
      count bigint NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX backend_counters_expires_idx ON backend_counters (expires_at);
    -- Small values with an expiry (storefront catalog versions, send-rate schedules).
    CREATE UNLOGGED TABLE backend_values (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX backend_values_expires_idx ON backend_values (expires_at);
    -- Concurrency slots (webhook deliveries in flight per endpoint): a claim lapses by itself.
    CREATE UNLOGGED TABLE backend_slots (
      key text NOT NULL,
      member text NOT NULL,
      claimed_at timestamptz NOT NULL,
      PRIMARY KEY (key, member)
    );
  `);
  await migrateBullmq(knex);
}

/** BullMQ's schema, applied with its own migrator (idempotent, serialised by an advisory lock). */
async function migrateBullmq(knex: Knex): Promise<void> {
  const connection = knex.client.config.connection as string | { connectionString: string };
  const client = new pg.Client(typeof connection === 'string' ? { connectionString: connection } : { connectionString: connection.connectionString });
  await client.connect();
  try {
    await runMigrations(client);
  } finally {
    await client.end();
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS backend_slots, backend_values, backend_counters');
  await knex.raw('DROP SCHEMA IF EXISTS bullmq CASCADE');
}
