import type { Knex } from 'knex';

/**
 * Orders after checkout (issue 24):
 * - `orders.cancelled_at`, `cancel_reason`; `order_items.refunded_quantity` (units refunded, so an
 *   item is never refunded twice) and `returned_quantity` (units on open or received returns).
 * - `order_refunds`: one row per refund, whoever made it (the admin API, or Stripe's dashboard seen
 *   through a webhook: `stripe_refund_id` is unique, so a refund is recorded once). A Stripe refund
 *   is `pending` from the moment it is reserved (under the order lock) until Stripe answered.
 * - `order_returns`: requested → received → closed | cancelled.
 * - `order_events`: the order's timeline (notes included). `placed` is written by a trigger on
 *   orders, so the checkout path sends no extra statement.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE orders ADD COLUMN cancelled_at timestamptz(3), ADD COLUMN cancel_reason text;
    ALTER TABLE order_items ADD COLUMN refunded_quantity integer NOT NULL DEFAULT 0 CHECK (refunded_quantity >= 0),
      ADD COLUMN returned_quantity integer NOT NULL DEFAULT 0 CHECK (returned_quantity >= 0);

    CREATE TABLE order_refunds (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      source text NOT NULL CHECK (source IN ('admin', 'stripe')),
      amount bigint NOT NULL CHECK (amount > 0),
      shipping bigint NOT NULL DEFAULT 0,
      items jsonb NOT NULL DEFAULT '[]',
      reason text,
      notify_customer boolean NOT NULL DEFAULT false,
      stripe_refund_id text UNIQUE,
      return_id uuid,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX order_refunds_order_idx ON order_refunds (order_id, created_at);

    CREATE TABLE order_returns (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'received', 'closed', 'cancelled')),
      reason text NOT NULL,
      items jsonb NOT NULL,
      received_items jsonb,
      restocked boolean NOT NULL DEFAULT false,
      refund_id uuid REFERENCES order_refunds(id) ON DELETE SET NULL,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      received_at timestamptz(3),
      closed_at timestamptz(3),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX order_returns_order_idx ON order_returns (order_id, created_at);

    CREATE TABLE order_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      type text NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'system', 'webhook')),
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      data jsonb NOT NULL DEFAULT '{}',
      body text,
      is_public boolean NOT NULL DEFAULT false,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3)
    );
    CREATE INDEX order_events_timeline_idx ON order_events (order_id, created_at DESC, id DESC);

    CREATE FUNCTION order_placed_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO order_events (store_id, order_id, type, actor_type, data, created_at)
      VALUES (NEW.store_id, NEW.id, 'placed', 'system', jsonb_build_object('number', NEW.number, 'total', NEW.total, 'paymentStatus', NEW.payment_status), NEW.created_at);
      RETURN NULL;
    END $$;
    CREATE TRIGGER orders_placed_event AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION order_placed_event();

    INSERT INTO order_events (store_id, order_id, type, actor_type, data, created_at)
      SELECT store_id, id, 'placed', 'system', jsonb_build_object('number', number, 'total', total, 'paymentStatus', payment_status), created_at FROM orders;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS orders_placed_event ON orders;
    DROP FUNCTION IF EXISTS order_placed_event();
    DROP TABLE IF EXISTS order_events;
    DROP TABLE IF EXISTS order_returns;
    DROP TABLE IF EXISTS order_refunds;
    ALTER TABLE order_items DROP COLUMN IF EXISTS refunded_quantity, DROP COLUMN IF EXISTS returned_quantity;
    ALTER TABLE orders DROP COLUMN IF EXISTS cancelled_at, DROP COLUMN IF EXISTS cancel_reason;
  `);
}
