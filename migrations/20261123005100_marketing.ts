import type { Knex } from 'knex';

/**
 * Email marketing: templates (Liquid; also per-store overrides of transactional keys), lists with
 * members, the suppression list, campaigns, their recipient snapshot, batch completion markers and clicks.
 *
 * - `campaign_recipients` is written once per campaign with one INSERT … SELECT (a batch is a range
 *   of its ids, so no batch column or index has to be written); each row moves
 *   pending → sending → sent/failed (or skipped/cancelled). It has no FK to customers so the snapshot
 *   stays cheap; a deleted customer is skipped at send time.
 * - `campaign_batches` marks each batch done exactly once, so `batches_done` can end the campaign.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stores ADD COLUMN IF NOT EXISTS marketing_send_rate integer;

    CREATE TABLE marketing_templates (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      key text NOT NULL,
      name text NOT NULL,
      subject text NOT NULL,
      html text NOT NULL DEFAULT '',
      text text NOT NULL DEFAULT '',
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX marketing_templates_store_key ON marketing_templates (store_id, key);
    CREATE INDEX marketing_templates_store_list_idx ON marketing_templates (store_id, created_at DESC, id DESC);

    CREATE TABLE marketing_lists (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX marketing_lists_store_list_idx ON marketing_lists (store_id, created_at DESC, id DESC);

    CREATE TABLE marketing_list_members (
      list_id uuid NOT NULL REFERENCES marketing_lists(id) ON DELETE CASCADE,
      customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
      PRIMARY KEY (list_id, customer_id)
    );
    CREATE INDEX marketing_list_members_customer_idx ON marketing_list_members (customer_id);

    -- Addresses that must not get marketing again (a permanent SMTP failure), per store.
    CREATE TABLE marketing_suppressions (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      email text NOT NULL,
      reason text NOT NULL,
      campaign_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, email)
    );

    CREATE TABLE campaigns (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('generic', 'newsletter', 'old-customers', 'product-announcement', 'collection-announcement')),
      status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'sending', 'sent', 'failed', 'cancelled')),
      template_id uuid REFERENCES marketing_templates(id) ON DELETE SET NULL,
      subject text NOT NULL,
      html text NOT NULL DEFAULT '',
      text text NOT NULL DEFAULT '',
      audience jsonb NOT NULL DEFAULT '{}',
      context jsonb NOT NULL DEFAULT '{}',
      recipients integer NOT NULL DEFAULT 0,
      -- Batches are ranges of recipient ids: batch n is [first + n * batch_size, first + (n + 1) * batch_size).
      first_recipient_id bigint,
      batch_size integer NOT NULL DEFAULT 0,
      batches_total integer NOT NULL DEFAULT 0,
      batches_done integer NOT NULL DEFAULT 0,
      snapshot_at timestamptz,
      send_at timestamptz,
      started_at timestamptz,
      completed_at timestamptz,
      cancelled_at timestamptz,
      error text,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX campaigns_store_list_idx ON campaigns (store_id, created_at DESC, id DESC);

    CREATE TABLE campaign_recipients (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      customer_id uuid NOT NULL,
      email text NOT NULL,
      first_name text,
      last_name text,
      status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'skipped', 'cancelled')),
      suppressed boolean NOT NULL DEFAULT false,
      attempts smallint NOT NULL DEFAULT 0,
      error text,
      sent_at timestamptz
    ) WITH (fillfactor = 80);
    CREATE UNIQUE INDEX campaign_recipients_customer_key ON campaign_recipients (campaign_id, customer_id);

    CREATE TABLE campaign_batches (
      campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      batch integer NOT NULL,
      done_at timestamptz,
      PRIMARY KEY (campaign_id, batch)
    );

    CREATE TABLE campaign_clicks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      recipient_id bigint NOT NULL,
      url text NOT NULL,
      clicked_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX campaign_clicks_campaign_idx ON campaign_clicks (campaign_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS campaign_clicks, campaign_batches, campaign_recipients, campaigns,
      marketing_suppressions, marketing_list_members, marketing_lists, marketing_templates CASCADE;
    ALTER TABLE stores DROP COLUMN IF EXISTS marketing_send_rate;
  `);
}
