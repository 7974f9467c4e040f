import type { Knex } from 'knex';

/**
 * The PostgreSQL slot store (src/adapters/slots/postgres.ts) as one row per key holding its claims
 * (`{ member: claimed at, epoch ms }`), in place of one row per claim. A claim per row meant an
 * insert and a delete per webhook delivery and destination: their index entries stayed until a
 * vacuum (bitmap scans never mark them dead), so every take of a busy key read all of them. The
 * webhooks bench left 24,000 dead rows and a 3.3 MB index for fewer than a hundred live claims,
 * and a delivery's PostgreSQL CPU grew with the burst. Now a take or release updates its key's row
 * in place: the key is not changed, so the update is HOT (no new index entry; the page prunes the
 * old versions), and the row lock takes the advisory lock's place. Rows stay inline up to 8 kB
 * (toast_tuple_target): a host key with a hundred claims in flight is about 6 kB; fillfactor leaves
 * room on the page for the next version. Claims held at the migration are carried over.
 */
const TAKE = `
    CREATE OR REPLACE FUNCTION backend_slot_take(p_key text, p_member text, p_limit integer, p_claim_ms double precision) RETURNS boolean
    LANGUAGE plpgsql AS $$
    DECLARE
      at_ms double precision := extract(epoch FROM now()) * 1000;
      held jsonb;
      live jsonb;
    BEGIN
      SELECT claims INTO held FROM backend_slot_claims WHERE key = p_key FOR UPDATE;
      IF NOT FOUND THEN
        -- The key's first claim: its row (a racing first claim waits for this one, then locks the row).
        INSERT INTO backend_slot_claims (key, claims) VALUES (p_key, '{}') ON CONFLICT (key) DO NOTHING;
        SELECT claims INTO held FROM backend_slot_claims WHERE key = p_key FOR UPDATE;
      END IF;
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

const TAKE_PER_ROW = `
    CREATE OR REPLACE FUNCTION backend_slot_take(p_key text, p_member text, p_limit integer, p_claim_ms double precision) RETURNS boolean
    LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended(p_key, 7));
      DELETE FROM backend_slots WHERE key = p_key AND claimed_at < now() - make_interval(secs => p_claim_ms / 1000);
      IF (SELECT count(*) FROM backend_slots WHERE key = p_key AND member <> p_member) >= p_limit THEN
        RETURN false;
      END IF;
      INSERT INTO backend_slots (key, member, claimed_at) VALUES (p_key, p_member, now())
        ON CONFLICT (key, member) DO UPDATE SET claimed_at = now();
      RETURN true;
    END $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE backend_slot_claims (
      key text PRIMARY KEY,
      claims jsonb NOT NULL
    ) WITH (fillfactor = 50, toast_tuple_target = 8160);
    INSERT INTO backend_slot_claims (key, claims)
      SELECT key, jsonb_object_agg(member, extract(epoch FROM claimed_at) * 1000) FROM backend_slots GROUP BY key;
    ${TAKE}
    DROP TABLE backend_slots;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE backend_slots (
      key text NOT NULL,
      member text NOT NULL,
      claimed_at timestamptz NOT NULL,
      PRIMARY KEY (key, member)
    );
    INSERT INTO backend_slots (key, member, claimed_at)
      SELECT c.key, e.k, to_timestamp((e.v)::double precision / 1000) FROM backend_slot_claims c, jsonb_each(c.claims) AS e(k, v);
    ${TAKE_PER_ROW}
    DROP TABLE backend_slot_claims;
  `);
}
