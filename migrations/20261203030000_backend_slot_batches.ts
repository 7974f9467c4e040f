import type { Knex } from 'knex';

/**
 * Slot claims and releases made about the same time in one process, in one call
 * (src/adapters/slots/postgres.ts batches them as the webhook bookkeeping does): a webhook
 * delivery makes two claims and one release, each a statement and a commit of its own, most of a
 * delivery's PostgreSQL work on the PostgreSQL backend. Each claim in a batch is exactly
 * `backend_slot_take`; the keys' rows are locked in key order (and the caller's claims of one key in
 * its order), as are the releases', so that two batches never wait on each other in a cycle.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION backend_slot_take_many(p_keys text[], p_members text[], p_limits integer[], p_claim_ms double precision[]) RETURNS boolean[]
    LANGUAGE plpgsql AS $$
    DECLARE
      taken boolean[] := array_fill(false, ARRAY[cardinality(p_keys)]);
      i integer;
    BEGIN
      FOR i IN SELECT n FROM generate_subscripts(p_keys, 1) AS n ORDER BY p_keys[n], n LOOP
        taken[i] := backend_slot_take(p_keys[i], p_members[i], p_limits[i], p_claim_ms[i]);
      END LOOP;
      RETURN taken;
    END $$;

    CREATE FUNCTION backend_slot_release_many(p_keys text[], p_members text[]) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
      released record;
    BEGIN
      FOR released IN SELECT u.k, array_agg(u.m) AS members FROM unnest(p_keys, p_members) AS u(k, m) GROUP BY u.k ORDER BY u.k LOOP
        UPDATE backend_slot_claims SET claims = claims - released.members WHERE key = released.k;
      END LOOP;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS backend_slot_take_many(text[], text[], integer[], double precision[]);
    DROP FUNCTION IF EXISTS backend_slot_release_many(text[], text[]);
  `);
}
