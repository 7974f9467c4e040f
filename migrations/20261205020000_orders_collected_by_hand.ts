import type { Knex } from 'knex';

/**
 * `orders.collected_by_hand`: what edits of a paid order collected by hand (`collect: mark_paid`).
 * On a Stripe order that money is not the PaymentIntent's: a refund reaching it was asked of the
 * first PaymentIntent, which Stripe refuses beyond its own amount. It is now a payment of its own,
 * refunded by hand (docs/orders-by-hand.md, Refunds). No CHECK constraint: the orders row is written
 * by every checkout, and PostgreSQL reads each CHECK's expression for every statement on it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orders ADD COLUMN collected_by_hand bigint NOT NULL DEFAULT 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orders DROP COLUMN collected_by_hand');
}
