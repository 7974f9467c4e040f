import type { Knex } from 'knex';

/**
 * Orders by hand are taxed (issue #34 with #35, docs/orders-by-hand.md):
 * - `draft_orders` keep their tax as a checkout session's snapshot does: `tax_total`,
 *   `prices_include_tax`, `shipping_tax_lines`, and who computed it (`tax_provider`,
 *   `tax_reference`: Stripe Tax's calculation, recorded as a transaction when the order is made).
 *   Each line's `taxLines` and `discountAmount` live in `lines` (jsonb) with the line.
 * - `order_balance_invoices`: a paid order's edit whose total grew, collected through a payment
 *   link (`collect: 'invoice'`): the amount, the link's token hash (the token is never stored),
 *   `open` until a payment makes it `paid` (`payment_intent_id`); payments that arrive after that
 *   are refunded in full and listed in `refunded_intents`; `void` when its order is cancelled.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE draft_orders
      ADD COLUMN tax_total bigint NOT NULL DEFAULT 0,
      ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false,
      ADD COLUMN shipping_tax_lines jsonb NOT NULL DEFAULT '[]'::jsonb,
      ADD COLUMN tax_provider text,
      ADD COLUMN tax_reference text;

    CREATE TABLE order_balance_invoices (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL,
      order_version integer NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      email text NOT NULL,
      token_hash text NOT NULL,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'void')),
      payment_intent_id text,
      refunded_intents text[] NOT NULL DEFAULT '{}',
      created_by uuid,
      paid_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, token_hash)
    );
    CREATE INDEX order_balance_invoices_order_idx ON order_balance_invoices (store_id, order_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS order_balance_invoices;
    ALTER TABLE draft_orders
      DROP COLUMN IF EXISTS tax_total,
      DROP COLUMN IF EXISTS prices_include_tax,
      DROP COLUMN IF EXISTS shipping_tax_lines,
      DROP COLUMN IF EXISTS tax_provider,
      DROP COLUMN IF EXISTS tax_reference;
  `);
}
