import type { Knex } from 'knex';

/**
 * Outgoing webhooks. An event row is written in the transaction of the change (with one delivery
 * row per matching subscription and its job in the outbox); `seq` only grows, and is drawn after
 * the change took its row lock, so per resource it orders events as they committed: it is the
 * `version` receivers compare.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE webhook_subscriptions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      url text NOT NULL,
      topics text[] NOT NULL,
      description text,
      secret_sealed text NOT NULL,
      previous_secret_sealed text,
      previous_secret_expires_at timestamptz(3),
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      failing_since timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_subscriptions_store_idx ON webhook_subscriptions (store_id, created_at, id);

    CREATE TABLE webhook_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      seq bigserial NOT NULL,
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      topic text NOT NULL,
      resource_id uuid,
      data jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_events_store_idx ON webhook_events (store_id, created_at);

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      subscription_id uuid NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
      event_id uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
      store_id uuid NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_duration_ms integer,
      last_error text,
      response_body text,
      next_retry_at timestamptz(3),
      locked_until timestamptz(3),
      first_attempt_at timestamptz(3),
      completed_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS webhook_deliveries, webhook_events, webhook_subscriptions');
}
