import type { Knex } from 'knex';

/**
 * The emails a customer import has applied so far, each with the file line it last came from, so a
 * repeat in a later batch (or after a retry's resume point) is reported naming the row it replaced
 * while the worker holds no more than one batch in memory. Written in each batch's transaction,
 * removed when the import completes (a run failed for good is cleaned up by the next import, of any store).
 * Unlogged: it is bookkeeping for warnings only; a database crash empties it, and a resumed import
 * then applies every row as before but cannot name rows applied before the crash.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE customer_import_emails (
      job_id uuid NOT NULL,
      email text NOT NULL,
      row_number integer NOT NULL,
      -- The line the latest repeat replaced (set only when the email was seen before).
      previous_row_number integer,
      PRIMARY KEY (job_id, email)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS customer_import_emails');
}
