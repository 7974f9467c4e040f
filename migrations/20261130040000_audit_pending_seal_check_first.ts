import type { Knex } from 'knex';

/**
 * audit_pending's append-only trigger asks the cheap question first: a DELETE in the seal's
 * transaction (`shopwright.audit_seal = 'on'`, a setting read) is let through before the lookup of
 * the store (a query per row, there for a deleted store's cascade). Each seal deletes every row it
 * chains, so that lookup ran once per audit entry for nothing. Same rules as 20261128040000:
 * UPDATE, TRUNCATE and any other DELETE are refused.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION audit_pending_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND coalesce(current_setting('shopwright.audit_seal', true), '') = 'on' THEN RETURN OLD; END IF;
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id) THEN RETURN OLD; END IF;
      RAISE EXCEPTION 'audit_pending is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION audit_pending_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id) THEN RETURN OLD; END IF;
      IF TG_OP = 'DELETE' AND coalesce(current_setting('shopwright.audit_seal', true), '') = 'on' THEN RETURN OLD; END IF;
      RAISE EXCEPTION 'audit_pending is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$;
  `);
}
