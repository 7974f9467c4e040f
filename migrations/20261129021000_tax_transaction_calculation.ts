import type { Knex } from 'knex';

/**
 * An edited Stripe Tax order records its new situation with Stripe Tax (docs/taxes.md): the edit
 * keeps its new calculation in `tax_reference`, and `tax_transaction_calculation` names the
 * calculation the order's current transaction was recorded from; the tax-sync job replaces the
 * transaction while the two differ. Orders recorded before this were recorded from their reference.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE orders ADD COLUMN tax_transaction_calculation text;
    UPDATE orders SET tax_transaction_calculation = tax_reference WHERE tax_transaction_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orders DROP COLUMN IF EXISTS tax_transaction_calculation');
}
