import type { Knex } from 'knex';

/**
 * How many times the campaign sweep (services/marketing/sweep.ts) gave a campaign's lost work a new
 * job: `campaigns.start_requeues` for its start job, `campaign_batches.requeues` for each batch's.
 * A batch or start whose job keeps getting lost (a worker killed by it, again and again) is given up
 * after a few, instead of being re-queued for ever. Constant defaults: no row is rewritten.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaigns ADD COLUMN start_requeues smallint NOT NULL DEFAULT 0;
    ALTER TABLE campaign_batches ADD COLUMN requeues smallint NOT NULL DEFAULT 0;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaign_batches DROP COLUMN IF EXISTS requeues;
    ALTER TABLE campaigns DROP COLUMN IF EXISTS start_requeues;
  `);
}
