import type { Knex } from 'knex';

/**
 * A slot claim on the PostgreSQL backend (src/adapters/slots/postgres.ts) in one call: the same
 * steps as before (the key's advisory lock, lapsed claims dropped, the others counted, the claim
 * made or renewed under the limit) in a function, so a claim is one statement and one round trip
 * instead of a transaction of six (BEGIN, lock, DELETE, COUNT, INSERT, COMMIT). A webhook delivery
 * takes two claims, so on the PostgreSQL backend the claims were most of its database round trips.
 * The lock is the statement's transaction's, held until the claim commits, as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION backend_slot_take(p_key text, p_member text, p_limit integer, p_claim_ms double precision) RETURNS boolean
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
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS backend_slot_take(text, text, integer, double precision)');
}
