import type { Knex } from 'knex';

/**
 * Manual payments:
 * - new stores accept them from the start (a store could take no order until the setting was
 *   patched, and nothing said so); existing stores keep the value they have.
 * - `manual_payment_days`: an unpaid, unfulfilled manual-payment order is cancelled this many days
 *   after it was placed (its stock goes back); the `unpaid-orders-cancel` schedule finds them
 *   through `orders_unpaid_manual_idx`, which holds only such orders (no checkout statement states
 *   its predicate, so it cannot be mistaken for a cheap scan on the hot path).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stores ALTER COLUMN manual_payments_enabled SET DEFAULT true;
    ALTER TABLE stores ADD COLUMN manual_payment_days integer NOT NULL DEFAULT 7
      CONSTRAINT stores_manual_payment_days_range CHECK (manual_payment_days BETWEEN 1 AND 365);
    CREATE INDEX orders_unpaid_manual_idx ON orders (created_at)
      WHERE payment_provider = 'manual' AND payment_status = 'pending' AND status = 'open' AND fulfillment_status = 'unfulfilled';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS orders_unpaid_manual_idx;
    ALTER TABLE stores DROP COLUMN IF EXISTS manual_payment_days;
    ALTER TABLE stores ALTER COLUMN manual_payments_enabled SET DEFAULT false;
  `);
}
