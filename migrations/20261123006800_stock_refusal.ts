import type { Knex } from 'knex';

/**
 * `refuse_insufficient_stock(variant)` raises the error a checkout statement fails with when the
 * stock it was to take was not there (SQLSTATE P0001, message `insufficient_inventory`, the
 * variant id as detail). Failing the statement, rather than returning "not taken" for the caller
 * to roll back, lets a checkout session be opened with its COMMIT in the same round trip: the
 * COMMIT sent behind a failed statement rolls the transaction back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION refuse_insufficient_stock(variant uuid) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'insufficient_inventory' USING ERRCODE = 'P0001', DETAIL = variant::text;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS refuse_insufficient_stock(uuid)');
}
