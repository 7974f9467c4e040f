import type { Knex } from 'knex';

/**
 * `order_disputes`: a customer's bank disputing an order's card payment (Stripe's `charge.dispute.*`
 * events). One row per Stripe dispute, kept at the status of the latest event seen
 * (`last_event_created`: an older event delivered late does not move it back). While a dispute is
 * open Stripe refuses refunds of the charge (`charge_disputed`), so the API refuses them first; a
 * lost dispute took its amount back from the store, so it is no longer refundable.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE order_disputes (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL,
      stripe_dispute_id text NOT NULL,
      payment_intent_id text NOT NULL,
      amount bigint NOT NULL CHECK (amount >= 0),
      currency text NOT NULL,
      reason text NOT NULL,
      status text NOT NULL CHECK (status IN ('warning_needs_response', 'warning_under_review', 'warning_closed', 'needs_response', 'under_review', 'won', 'lost', 'charge_refunded', 'prevented')),
      evidence_due_by timestamptz,
      last_event_created timestamptz NOT NULL,
      closed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, stripe_dispute_id),
      FOREIGN KEY (store_id, order_id) REFERENCES orders(store_id, id) ON DELETE CASCADE
    );
    CREATE INDEX order_disputes_order_idx ON order_disputes (store_id, order_id, created_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS order_disputes');
}
