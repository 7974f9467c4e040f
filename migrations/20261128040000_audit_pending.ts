import type { Knex } from 'knex';

/**
 * Audit entries are written in their change's transaction to `audit_pending` (no lock: concurrent
 * changes in one store no longer queue on the chain's head through their COMMIT), and sealed into
 * `audit_log`'s hash chain shortly after by the audit module's sealer (src/services/audit/seal.ts),
 * which takes the store's chain lock once per batch. `pending_id` (one sequence) is the order they
 * are chained in. Append-only like the log: the trigger refuses UPDATE, DELETE and TRUNCATE unless
 * the transaction set `shopwright.audit_seal = 'on'` (the sealer, which moves rows into the log in
 * the same transaction), and a deleted store takes its pending entries with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_pending (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      pending_id bigserial NOT NULL,
      id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
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
      PRIMARY KEY (store_id, pending_id)
    );

    CREATE FUNCTION audit_pending_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id) THEN RETURN OLD; END IF;
      IF TG_OP = 'DELETE' AND coalesce(current_setting('shopwright.audit_seal', true), '') = 'on' THEN RETURN OLD; END IF;
      RAISE EXCEPTION 'audit_pending is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER audit_pending_no_update_delete BEFORE UPDATE OR DELETE ON audit_pending
      FOR EACH ROW EXECUTE FUNCTION audit_pending_append_only();
    CREATE TRIGGER audit_pending_no_truncate BEFORE TRUNCATE ON audit_pending
      FOR EACH STATEMENT EXECUTE FUNCTION audit_pending_append_only();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS audit_pending;
    DROP FUNCTION IF EXISTS audit_pending_append_only();
  `);
}
