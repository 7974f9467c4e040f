import type { Knex } from 'knex';

/**
 * `backend_slot_claims` rows of idle keys are now deleted (src/adapters/sweep.ts: a key with no
 * claim made in the last hour, at most once a minute per process); they were kept forever, one
 * per endpoint, destination host, user, API key and store that ever held a slot. A take may then
 * find its key's row gone between its insert (which met the row, so inserted nothing) and its
 * lock: it would have counted no claims, written its own to no row and answered true with nothing
 * held. It now loops until it holds the row, inserting it again when it went. Otherwise it is the
 * take of migration 20261203020000, unchanged.
 */
const take = (findRow: string) => `
    CREATE OR REPLACE FUNCTION backend_slot_take(p_key text, p_member text, p_limit integer, p_claim_ms double precision) RETURNS boolean
    LANGUAGE plpgsql AS $$
    DECLARE
      at_ms double precision := extract(epoch FROM now()) * 1000;
      held jsonb;
      live jsonb;
    BEGIN
      ${findRow}
      -- The others' claims that have not lapsed (the member's own is renewed or made below).
      SELECT coalesce(jsonb_object_agg(e.k, e.v), '{}') INTO live
        FROM jsonb_each(held) AS e(k, v)
       WHERE e.k <> p_member AND (e.v)::double precision >= at_ms - p_claim_ms;
      IF (SELECT count(*) FROM jsonb_object_keys(live)) >= p_limit THEN
        RETURN false;
      END IF;
      UPDATE backend_slot_claims SET claims = live || jsonb_build_object(p_member, at_ms) WHERE key = p_key;
      RETURN true;
    END $$;`;

const FIND_OR_MAKE_ROW = `LOOP
        SELECT claims INTO held FROM backend_slot_claims WHERE key = p_key FOR UPDATE;
        EXIT WHEN FOUND;
        -- No row: the key's first claim, or its row was swept as idle. A racing first claim waits
        -- for this insert, then locks the row; a row swept after this insert met it is made again.
        INSERT INTO backend_slot_claims (key, claims) VALUES (p_key, '{}') ON CONFLICT (key) DO NOTHING;
      END LOOP;`;

const FIND_ROW_ONCE = `SELECT claims INTO held FROM backend_slot_claims WHERE key = p_key FOR UPDATE;
      IF NOT FOUND THEN
        -- The key's first claim: its row (a racing first claim waits for this one, then locks the row).
        INSERT INTO backend_slot_claims (key, claims) VALUES (p_key, '{}') ON CONFLICT (key) DO NOTHING;
        SELECT claims INTO held FROM backend_slot_claims WHERE key = p_key FOR UPDATE;
      END IF;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(take(FIND_OR_MAKE_ROW));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(take(FIND_ROW_ONCE));
}
