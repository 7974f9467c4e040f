import type { Knex } from 'knex';

/**
 * Orders by hand (issue #35).
 * - `draft_orders`: an order a member puts together (phone, email, fair): its lines (a variant's or
 *   a custom title and price) priced when saved, shipping (a store rate or a custom one), a
 *   discount (a code or a manual one), the totals computed as a checkout's. `status`: `open`
 *   (editable, holds no stock), `invoiced` (its stock held, an invoice link sent: paying it makes
 *   the order), `completed` (`order_id` is the order). `invoice_token_hash` is the sha256 of the
 *   public link's token (the token itself is never stored).
 * - `draft_order_payments`: each PaymentIntent started through an invoice link; `kept` is the one
 *   that made the order, `refunded` a second payment given back in full.
 * - `orders.version`: counts an order's edits (an edit names the version it read: a stale one is 409).
 * - `order_items.exchanged_quantity`: units an exchange took back; they leave what the order bills
 *   (its totals price `quantity - exchanged_quantity`).
 * - `order_refunds.source` `edit`: money an edit or exchange gave back because the order's total
 *   went down; it is not counted in `amount_refunded` (the total already shrank by it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE draft_orders (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'invoiced', 'completed')),
      email text,
      customer_id uuid,
      currency text NOT NULL,
      lines jsonb NOT NULL DEFAULT '[]'::jsonb,
      shipping_address jsonb,
      shipping jsonb,
      discount_code text,
      manual_discount jsonb,
      note text,
      tags text[] NOT NULL DEFAULT '{}',
      subtotal bigint NOT NULL DEFAULT 0,
      discount_total bigint NOT NULL DEFAULT 0,
      shipping_total bigint NOT NULL DEFAULT 0,
      total bigint NOT NULL DEFAULT 0,
      order_id uuid,
      invoice_token_hash text,
      invoiced_at timestamptz,
      completed_at timestamptz,
      created_by uuid,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, invoice_token_hash)
    );
    CREATE INDEX draft_orders_list_idx ON draft_orders (store_id, created_at DESC, id DESC);

    CREATE TABLE draft_order_payments (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      draft_order_id uuid NOT NULL,
      payment_intent_id text NOT NULL,
      amount bigint NOT NULL,
      status text NOT NULL DEFAULT 'started' CHECK (status IN ('started', 'kept', 'refunded')),
      stripe_refund_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, payment_intent_id),
      FOREIGN KEY (store_id, draft_order_id) REFERENCES draft_orders (store_id, id) ON DELETE CASCADE
    );
    CREATE INDEX draft_order_payments_draft_idx ON draft_order_payments (store_id, draft_order_id);

    ALTER TABLE orders ADD COLUMN version integer NOT NULL DEFAULT 1;
    ALTER TABLE order_items ADD COLUMN exchanged_quantity integer NOT NULL DEFAULT 0 CHECK (exchanged_quantity >= 0);
    ALTER TABLE order_refunds DROP CONSTRAINT IF EXISTS order_refunds_source_check;
    ALTER TABLE order_refunds ADD CONSTRAINT order_refunds_source_check CHECK (source IN ('admin', 'stripe', 'edit'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE order_refunds DROP CONSTRAINT IF EXISTS order_refunds_source_check;
    ALTER TABLE order_refunds ADD CONSTRAINT order_refunds_source_check CHECK (source IN ('admin', 'stripe'));
    ALTER TABLE order_items DROP COLUMN IF EXISTS exchanged_quantity;
    ALTER TABLE orders DROP COLUMN IF EXISTS version;
    DROP TABLE IF EXISTS draft_order_payments;
    DROP TABLE IF EXISTS draft_orders;
  `);
}
