import type { Knex } from 'knex';

/**
 * `order_balance_invoices.taken_back`: how much of a balance never paid (its link open, or voided)
 * a later edit's lower total took back. An open or voided balance is in the order's total but was
 * never collected: refunds and cancels leave it out of what they give back, and an edit that
 * lowers the total takes it back first, refunding only the rest. Without it, voiding a link and
 * editing the order back refunded the customer money they had never paid.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE order_balance_invoices
      ADD COLUMN taken_back bigint NOT NULL DEFAULT 0,
      ADD CONSTRAINT order_balance_invoices_taken_back_check CHECK (taken_back >= 0 AND taken_back <= amount)
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE order_balance_invoices DROP COLUMN taken_back');
}
