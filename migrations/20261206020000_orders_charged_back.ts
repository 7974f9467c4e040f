import type { Knex } from 'knex';

/**
 * `orders.amount_charged_back`: what lost disputes (order_disputes) took back of the order's
 * payments. The bank returned it to the customer, so the store's revenue and the customer's
 * `totalSpent` count the order net of it, as they count it net of refunds (order-figures.ts).
 * A constant default: adding it rewrites no row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE orders
      ADD COLUMN amount_charged_back bigint NOT NULL DEFAULT 0,
      ADD CONSTRAINT orders_amount_charged_back_check CHECK (amount_charged_back >= 0)
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orders DROP COLUMN amount_charged_back');
}
