import type { Knex } from 'knex';

/**
 * Stripe's refund and charge events name only a PaymentIntent; one that paid an edit's balance is
 * found through its balance invoice (draft-orders' orderOfBalancePayment), across stores, as orders
 * are found by theirs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX order_balance_invoices_payment_intent_idx ON order_balance_invoices (payment_intent_id) WHERE payment_intent_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX order_balance_invoices_payment_intent_idx');
}
