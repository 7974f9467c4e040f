import type { Knex } from 'knex';

/**
 * Payment events are untrusted input and move a payment forward only.
 *
 * - `stripe_events.status` gains `ignored` and a `reason`: a signed event that changes nothing (another
 *   connected account, another amount or currency, older than what was applied, a backwards move)
 *   is kept with why.
 * - Payment statuses (orders and checkout sessions) become the state machine's set
 *   (services/payments/payment-state.ts): pending, authorized, paid, partially_refunded, refunded,
 *   voided, failed. Orders record the amount refunded and the last Stripe event applied to their
 *   payment (its `created`, second resolution, and id); connected accounts the last `account.updated`.
 *
 * The wider CHECKs are added NOT VALID then validated, so the table is not locked while every row is
 * read; the new columns are nullable or have a constant default (no rewrite). Refunded orders are
 * backfilled as refunded in full (the only refund the old model recorded).
 */
const STATES = `('pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided', 'failed')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stripe_events DROP CONSTRAINT stripe_events_status_check;
    ALTER TABLE stripe_events ADD CONSTRAINT stripe_events_status_check CHECK (status IN ('pending', 'processed', 'ignored', 'failed')) NOT VALID;
    ALTER TABLE stripe_events VALIDATE CONSTRAINT stripe_events_status_check;
    ALTER TABLE stripe_events ADD COLUMN reason text;

    ALTER TABLE orders DROP CONSTRAINT orders_payment_status_check;
    ALTER TABLE orders ADD CONSTRAINT orders_payment_status_check CHECK (payment_status IN ${STATES}) NOT VALID;
    ALTER TABLE orders VALIDATE CONSTRAINT orders_payment_status_check;
    ALTER TABLE orders
      ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0,
      ADD COLUMN payment_event_created timestamptz,
      ADD COLUMN payment_event_id text;
    UPDATE orders SET amount_refunded = total WHERE payment_status = 'refunded';

    ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_payment_status_check;
    ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_payment_status_check CHECK (payment_status IN ${STATES}) NOT VALID;
    ALTER TABLE checkout_sessions VALIDATE CONSTRAINT checkout_sessions_payment_status_check;

    ALTER TABLE store_payment_accounts
      ADD COLUMN last_event_created timestamptz,
      ADD COLUMN last_event_id text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE store_payment_accounts DROP COLUMN IF EXISTS last_event_created, DROP COLUMN IF EXISTS last_event_id;
    UPDATE checkout_sessions SET payment_status = CASE WHEN payment_status IN ('authorized') THEN 'paid' WHEN payment_status = 'voided' THEN 'failed' ELSE payment_status END
     WHERE payment_status NOT IN ('pending', 'paid', 'failed');
    ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_payment_status_check;
    ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_payment_status_check CHECK (payment_status IN ('pending', 'paid', 'failed'));
    UPDATE orders SET payment_status = CASE WHEN payment_status IN ('authorized', 'partially_refunded') THEN 'paid' WHEN payment_status = 'voided' THEN 'failed' ELSE payment_status END
     WHERE payment_status NOT IN ('pending', 'paid', 'refunded', 'failed');
    ALTER TABLE orders DROP CONSTRAINT orders_payment_status_check;
    ALTER TABLE orders ADD CONSTRAINT orders_payment_status_check CHECK (payment_status IN ('pending', 'paid', 'refunded', 'failed'));
    ALTER TABLE orders DROP COLUMN IF EXISTS amount_refunded, DROP COLUMN IF EXISTS payment_event_created, DROP COLUMN IF EXISTS payment_event_id;
    UPDATE stripe_events SET status = 'processed' WHERE status = 'ignored';
    ALTER TABLE stripe_events DROP CONSTRAINT stripe_events_status_check;
    ALTER TABLE stripe_events ADD CONSTRAINT stripe_events_status_check CHECK (status IN ('pending', 'processed', 'failed'));
    ALTER TABLE stripe_events DROP COLUMN IF EXISTS reason;
  `);
}
