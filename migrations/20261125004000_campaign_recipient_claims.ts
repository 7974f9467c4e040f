import type { Knex } from 'knex';

/**
 * A campaign recipient's claim says who holds it and until when: the batch run that moved it to
 * `sending` (`claim_token`, one per run), when (`claimed_at`) and until when (`claim_expires_at`,
 * extended by the run while it lives). A claim that expires belonged to a worker that died: the
 * recipient goes back to `pending` and is sent by the batch's next run, instead of being failed.
 * Nullable columns without defaults: no existing row is rewritten. A row still `sending` from before
 * has no expiry and keeps the old rule (failed, never sent twice).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaign_recipients
      ADD COLUMN claim_token uuid,
      ADD COLUMN claimed_at timestamptz,
      ADD COLUMN claim_expires_at timestamptz;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaign_recipients
      DROP COLUMN IF EXISTS claim_expires_at,
      DROP COLUMN IF EXISTS claimed_at,
      DROP COLUMN IF EXISTS claim_token;
  `);
}
