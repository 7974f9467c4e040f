import type { Knex } from 'knex';

/** Admin API keys: `swk_` secrets stored as SHA-256, limited to their store and scopes. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      name text NOT NULL,
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      scopes text[] NOT NULL,
      -- Who acts when a key writes (inventory ledger, campaigns); keys die with that user.
      created_by uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      last_used_at timestamptz(3),
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_store_idx ON api_keys (store_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS api_keys');
}
