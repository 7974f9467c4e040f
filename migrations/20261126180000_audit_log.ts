import type { Knex } from 'knex';

/**
 * The audit log (issue #36): one row per recorded change or bulk personal-data read, per store a
 * hash chain (`seq` 1, 2, …; `hash` = sha256(prev_hash || canonical JSON of the entry), computed by
 * src/services/audit/chain.ts). Append-only in the database itself: a trigger refuses UPDATE,
 * DELETE and TRUNCATE unless the transaction set `shopwright.audit_purge = 'on'` (SET LOCAL), which
 * only the retention purge does (and deleting a store cascades to its log). `stores.audit_retention_days` (default 365) says how long a store
 * keeps its entries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_log (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      created_at timestamptz NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'system')),
      actor_user_id uuid,
      actor_api_key_id uuid,
      actor_email text,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      changes jsonb,
      request_id text,
      ip text,
      user_agent text,
      prev_hash text NOT NULL,
      hash text NOT NULL,
      PRIMARY KEY (store_id, seq),
      UNIQUE (store_id, id)
    );
    CREATE INDEX audit_log_time_idx ON audit_log (store_id, created_at DESC, seq DESC);
    CREATE INDEX audit_log_purge_idx ON audit_log (created_at);

    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- A deleted store takes its log with it (the FK's cascade: the store row is already gone).
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id) THEN RETURN OLD; END IF;
      IF coalesce(current_setting('shopwright.audit_purge', true), '') <> 'on' THEN
        RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
      END IF;
      IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

    ALTER TABLE stores ADD COLUMN audit_retention_days integer NOT NULL DEFAULT 365
      CHECK (audit_retention_days BETWEEN 1 AND 3650);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stores DROP COLUMN IF EXISTS audit_retention_days;
    DROP TABLE IF EXISTS audit_log;
    DROP FUNCTION IF EXISTS audit_log_append_only();
  `);
}
