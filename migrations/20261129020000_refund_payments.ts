import type { Knex } from 'knex';

/**
 * A refund goes to the payments that hold the money (docs/orders-by-hand.md, Refunds): an order's
 * balance paid by link is a payment of its own, next to the order's first one. `payments` lists the
 * parts a refund was split into, each `{ provider, paymentIntentId, amount, stripeRefundId }`, newest
 * payment first; what a payment still holds is its amount less its parts in refunds not failed. Rows
 * from before (`[]`) were one part on the order's first payment.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE order_refunds ADD COLUMN payments jsonb NOT NULL DEFAULT '[]'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE order_refunds DROP COLUMN IF EXISTS payments');
}
