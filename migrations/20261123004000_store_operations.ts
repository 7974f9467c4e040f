import type { Knex } from 'knex';

/**
 * Store operations: team invites, custom domains, the external-system link, replay protection for
 * signed webhooks, external ids on catalog rows (backfill upserts by them), and the store settings
 * the admin PATCH writes that earlier migrations did not have.
 *
 * - An invite keeps only the SHA-256 of its link token; resend replaces the hash, so the old link dies.
 * - One custom domain per store; a hostname belongs to at most one store (lower-cased unique index).
 * - `webhook_receipts` remembers each accepted signature for longer than the 5-minute tolerance, so a
 *   replayed delivery is refused even while its timestamp is still fresh.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stores ADD COLUMN IF NOT EXISTS newsletter_double_opt_in boolean NOT NULL DEFAULT false;
    ALTER TABLE stores ADD COLUMN IF NOT EXISTS marketing_send_rate integer;
    ALTER TABLE stores ADD COLUMN IF NOT EXISTS storefront_url text;

    CREATE TABLE store_invites (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'staff')),
      token_hash text NOT NULL UNIQUE,
      invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
      expires_at timestamptz(3) NOT NULL,
      accepted_at timestamptz(3),
      accepted_by uuid REFERENCES users(id) ON DELETE SET NULL,
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    -- At most one open invite per store and address: inviting again refreshes it.
    CREATE UNIQUE INDEX store_invites_open_key ON store_invites (store_id, lower(email))
      WHERE accepted_at IS NULL AND revoked_at IS NULL;
    CREATE INDEX store_invites_store_idx ON store_invites (store_id, created_at DESC);

    CREATE TABLE store_domains (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL UNIQUE REFERENCES stores(id) ON DELETE CASCADE,
      hostname text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed', 'active')),
      verification_token text NOT NULL,
      failures jsonb NOT NULL DEFAULT '[]',
      check_count integer NOT NULL DEFAULT 0,
      last_checked_at timestamptz(3),
      next_check_at timestamptz(3),
      verified_at timestamptz(3),
      activated_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX store_domains_hostname_key ON store_domains (lower(hostname));
    CREATE INDEX store_domains_due_idx ON store_domains (next_check_at) WHERE status IN ('pending', 'failed');

    CREATE TABLE webhook_receipts (
      source text NOT NULL,
      signature text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (source, signature)
    );
    CREATE INDEX webhook_receipts_received_idx ON webhook_receipts (received_at);

    CREATE TABLE external_system_links (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL UNIQUE REFERENCES stores(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('connected', 'disconnected')),
      base_url text NOT NULL,
      account_id text NOT NULL,
      account_name text NOT NULL,
      api_key_encrypted text NOT NULL,
      webhook_secret_encrypted text NOT NULL,
      sync_products boolean NOT NULL DEFAULT true,
      sync_customers boolean NOT NULL DEFAULT true,
      connected_at timestamptz(3),
      disconnected_at timestamptz(3),
      last_synced_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX external_system_links_account_idx ON external_system_links (account_id);

    ALTER TABLE products ADD COLUMN IF NOT EXISTS external_id text;
    ALTER TABLE products ADD COLUMN IF NOT EXISTS external_updated_at timestamptz;
    CREATE UNIQUE INDEX IF NOT EXISTS products_store_external_key ON products (store_id, external_id) WHERE external_id IS NOT NULL;
    ALTER TABLE product_variants ADD COLUMN IF NOT EXISTS external_id text;
    CREATE UNIQUE INDEX IF NOT EXISTS product_variants_store_external_key ON product_variants (store_id, external_id) WHERE external_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS product_variants_store_external_key;
    ALTER TABLE product_variants DROP COLUMN IF EXISTS external_id;
    DROP INDEX IF EXISTS products_store_external_key;
    ALTER TABLE products DROP COLUMN IF EXISTS external_updated_at, DROP COLUMN IF EXISTS external_id;
    DROP TABLE IF EXISTS external_system_links, webhook_receipts, store_domains, store_invites CASCADE;
    ALTER TABLE stores DROP COLUMN IF EXISTS storefront_url, DROP COLUMN IF EXISTS marketing_send_rate,
      DROP COLUMN IF EXISTS newsletter_double_opt_in;
  `);
}
