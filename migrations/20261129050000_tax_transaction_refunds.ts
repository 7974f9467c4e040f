import type { Knex } from 'knex';

/**
 * The refunds an order's current Stripe Tax transaction already gives back (docs/taxes.md): an
 * edit replaces the transaction with one less every refund settled by then, including a refund
 * whose own reversal is still waiting in the tax-sync job; that job then finds its refund listed
 * here and reverses nothing, so a refund is taken off the new transaction once. Empty for a
 * transaction recorded from the order's first calculation (its refunds reverse it one by one).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE orders ADD COLUMN tax_transaction_refunds uuid[] NOT NULL DEFAULT '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orders DROP COLUMN IF EXISTS tax_transaction_refunds');
}
