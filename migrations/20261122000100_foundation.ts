import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email text NOT NULL,
      first_name text NOT NULL,
      last_name text NOT NULL,
      password_hash text NOT NULL,
      session_version integer NOT NULL DEFAULT 0,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));

    CREATE TABLE stores (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      slug text NOT NULL,
      currency char(3) NOT NULL DEFAULT 'USD',
      contact_email text,
      timezone text NOT NULL DEFAULT 'UTC',
      shipping_methods jsonb NOT NULL DEFAULT '[]',
      manual_payments_enabled boolean NOT NULL DEFAULT false,
      logo_url text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX stores_slug_key ON stores (lower(slug));

    CREATE TABLE memberships (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'staff')),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      UNIQUE (store_id, user_id)
    );
    CREATE INDEX memberships_user_idx ON memberships (user_id);

    CREATE TABLE storefront_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      name text NOT NULL,
      prefix text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      last_used_at timestamptz(3),
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX storefront_tokens_store_idx ON storefront_tokens (store_id, created_at, id);

    CREATE TABLE password_resets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash text NOT NULL UNIQUE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX password_resets_user_idx ON password_resets (user_id);

    CREATE TABLE discounts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      code text NOT NULL,
      type text NOT NULL CHECK (type IN ('percentage', 'fixed_amount', 'free_shipping')),
      value numeric(12, 2),
      is_active boolean NOT NULL DEFAULT true,
      usage_limit integer CHECK (usage_limit IS NULL OR usage_limit >= 0),
      usage_count integer NOT NULL DEFAULT 0,
      starts_at timestamptz(3),
      ends_at timestamptz(3),
      minimum_order_amount integer,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      CONSTRAINT discounts_usage_within_limit CHECK (usage_limit IS NULL OR usage_count <= usage_limit)
    );
    CREATE UNIQUE INDEX discounts_store_code_key ON discounts (store_id, lower(code));
    CREATE INDEX discounts_store_list_idx ON discounts (store_id, created_at DESC, id DESC);

    CREATE TABLE store_email_settings (
      store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
      from_name text,
      from_email text,
      reply_to text,
      smtp_host text,
      smtp_port integer,
      smtp_secure boolean NOT NULL DEFAULT false,
      smtp_user text,
      smtp_password_encrypted text,
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );

    CREATE TABLE email_log (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid REFERENCES stores(id) ON DELETE CASCADE,
      to_email text NOT NULL,
      template_key text,
      subject text,
      status text NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
      provider text,
      provider_message_id text,
      error text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      sent_at timestamptz(3)
    );
    CREATE INDEX email_log_store_idx ON email_log (store_id, created_at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS email_log, store_email_settings, discounts, password_resets,
      storefront_tokens, memberships, stores, users CASCADE;
  `);
}
