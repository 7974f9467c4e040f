import type { Knex } from 'knex';

/**
 * A test send the route took back because the job queue did not take it in time is `withdrawn`, a
 * state of its own rather than `failed`: a failed attempt may still be retried, a withdrawn email is
 * never sent, whenever a relay that was stuck moves its job (delivery skips the row).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE email_log DROP CONSTRAINT email_log_status_check;
    ALTER TABLE email_log ADD CONSTRAINT email_log_status_check CHECK (status IN ('queued', 'sent', 'failed', 'withdrawn'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE email_log SET status = 'failed' WHERE status = 'withdrawn';
    ALTER TABLE email_log DROP CONSTRAINT email_log_status_check;
    ALTER TABLE email_log ADD CONSTRAINT email_log_status_check CHECK (status IN ('queued', 'sent', 'failed'));
  `);
}
