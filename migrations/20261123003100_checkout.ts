import type { Knex } from 'knex';

/**
 * Carts, checkout sessions with their stock reservations, orders with items and fulfilments,
 * payment accounts (Stripe Connect), Stripe events, idempotency keys and verified reviews.
 *
 * - Cart ids and checkout-session ids are random UUIDs (122 random bits): the storefront token is
 *   public, so knowing a cart id is the shopper's capability.
 * - Stock is reserved by taking it from `product_variants.inventory_quantity` when a checkout
 *   session opens (a ledger row says so); an expired or cancelled session gives it back. Confirm
 *   only converts the reservation, so it never fails on stock.
 * - `store_order_counters` hands out per-store sequential order numbers (one row lock per store).
 * - `product_ratings` is the approved-review aggregate, recomputed under its own row lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE carts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
      currency char(3) NOT NULL,
      email text,
      discount_id uuid REFERENCES discounts(id) ON DELETE SET NULL,
      discount_code text,
      shipping_method_id text,
      shipping_country char(2),
      order_id uuid,
      expires_at timestamptz NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX carts_expiry_idx ON carts (expires_at) WHERE status = 'open';
    CREATE INDEX carts_store_idx ON carts (store_id, created_at DESC);

    CREATE TABLE cart_items (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      cart_id uuid NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      variant_id uuid NOT NULL REFERENCES product_variants(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
      quantity integer NOT NULL CHECK (quantity > 0),
      created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
      UNIQUE (cart_id, variant_id)
    );
    CREATE INDEX cart_items_variant_idx ON cart_items (variant_id);

    CREATE TABLE checkout_sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      cart_id uuid NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'expired', 'cancelled')),
      provider text NOT NULL CHECK (provider IN ('manual', 'stripe')),
      amount bigint NOT NULL,
      currency char(3) NOT NULL,
      email text NOT NULL,
      shipping_address jsonb NOT NULL,
      billing_address jsonb,
      snapshot jsonb NOT NULL,
      discount_id uuid REFERENCES discounts(id) ON DELETE SET NULL,
      payment_intent_id text,
      client_secret text,
      payment_status text NOT NULL DEFAULT 'pending' CHECK (payment_status IN ('pending', 'paid', 'failed')),
      order_id uuid,
      expires_at timestamptz NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX checkout_sessions_payment_intent_key ON checkout_sessions (payment_intent_id) WHERE payment_intent_id IS NOT NULL;
    CREATE INDEX checkout_sessions_cart_idx ON checkout_sessions (cart_id) WHERE status = 'pending';
    CREATE INDEX checkout_sessions_expiry_idx ON checkout_sessions (expires_at) WHERE status = 'pending';

    CREATE TABLE stock_reservations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      session_id uuid NOT NULL REFERENCES checkout_sessions(id) ON DELETE CASCADE,
      variant_id uuid NOT NULL REFERENCES product_variants(id) ON DELETE CASCADE,
      quantity integer NOT NULL CHECK (quantity > 0),
      state text NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'converted', 'released')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX stock_reservations_session_idx ON stock_reservations (session_id);
    CREATE INDEX stock_reservations_variant_idx ON stock_reservations (variant_id) WHERE state = 'held';

    CREATE TABLE store_order_counters (
      store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
      last_number integer NOT NULL
    );

    CREATE TABLE orders (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      number integer NOT NULL,
      customer_id uuid REFERENCES customers(id) ON DELETE SET NULL,
      checkout_session_id uuid UNIQUE REFERENCES checkout_sessions(id) ON DELETE SET NULL,
      email text NOT NULL,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed', 'cancelled')),
      payment_status text NOT NULL DEFAULT 'pending' CHECK (payment_status IN ('pending', 'paid', 'refunded', 'failed')),
      fulfillment_status text NOT NULL DEFAULT 'unfulfilled' CHECK (fulfillment_status IN ('unfulfilled', 'partially_fulfilled', 'fulfilled')),
      payment_provider text NOT NULL,
      payment_intent_id text,
      currency char(3) NOT NULL,
      subtotal bigint NOT NULL,
      discount_total bigint NOT NULL DEFAULT 0,
      shipping_total bigint NOT NULL DEFAULT 0,
      total bigint NOT NULL,
      discount_code text,
      shipping_method jsonb,
      shipping_address jsonb NOT NULL,
      billing_address jsonb,
      tracking_token text NOT NULL UNIQUE,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      UNIQUE (store_id, number)
    );
    CREATE INDEX orders_store_list_idx ON orders (store_id, created_at DESC, id DESC) INCLUDE (total, payment_status);
    CREATE INDEX orders_store_customer_idx ON orders (store_id, customer_id, created_at DESC);
    CREATE INDEX orders_store_email_idx ON orders (store_id, lower(email) text_pattern_ops);
    CREATE INDEX orders_store_status_idx ON orders (store_id, status, created_at DESC, id DESC);
    CREATE INDEX orders_payment_intent_idx ON orders (payment_intent_id) WHERE payment_intent_id IS NOT NULL;

    CREATE TABLE order_items (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      product_id uuid REFERENCES products(id) ON DELETE SET NULL,
      variant_id uuid REFERENCES product_variants(id) ON DELETE SET NULL,
      title text NOT NULL,
      sku text,
      quantity integer NOT NULL CHECK (quantity > 0),
      unit_price integer NOT NULL,
      line_total bigint NOT NULL,
      fulfilled_quantity integer NOT NULL DEFAULT 0,
      position integer NOT NULL DEFAULT 0,
      CONSTRAINT order_items_fulfilled_within_quantity CHECK (fulfilled_quantity >= 0 AND fulfilled_quantity <= quantity)
    );
    CREATE INDEX order_items_order_idx ON order_items (order_id, position);
    CREATE INDEX order_items_store_product_idx ON order_items (store_id, product_id);
    CREATE INDEX order_items_variant_idx ON order_items (variant_id);

    CREATE TABLE fulfillments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      items jsonb NOT NULL,
      tracking_company text,
      tracking_number text,
      tracking_url text,
      notify_customer boolean NOT NULL DEFAULT true,
      created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX fulfillments_order_idx ON fulfillments (order_id, created_at);

    CREATE TABLE store_payment_accounts (
      store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
      provider text NOT NULL DEFAULT 'stripe',
      -- null after a reset; generation counts resets so the next account gets a new Stripe idempotency key.
      account_id text UNIQUE,
      generation integer NOT NULL DEFAULT 0,
      charges_enabled boolean NOT NULL DEFAULT false,
      payouts_enabled boolean NOT NULL DEFAULT false,
      details_submitted boolean NOT NULL DEFAULT false,
      requirements_due jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE stripe_events (
      id text PRIMARY KEY,
      type text NOT NULL,
      account_id text,
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processed', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      error text,
      received_at timestamptz NOT NULL DEFAULT now(),
      processed_at timestamptz
    );

    CREATE TABLE idempotency_keys (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      key text NOT NULL,
      request_hash text NOT NULL,
      status_code integer,
      response jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, key)
    );
    CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

    CREATE TABLE reviews (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
      order_id uuid REFERENCES orders(id) ON DELETE SET NULL,
      customer_id uuid REFERENCES customers(id) ON DELETE SET NULL,
      email text NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected')),
      rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
      title text NOT NULL DEFAULT '',
      body text NOT NULL DEFAULT '',
      author_name text NOT NULL DEFAULT '',
      moderation_note text,
      moderated_at timestamptz,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX reviews_product_email_key ON reviews (store_id, product_id, lower(email));
    CREATE INDEX reviews_store_state_idx ON reviews (store_id, state, created_at DESC, id DESC);
    CREATE INDEX reviews_store_list_idx ON reviews (store_id, created_at DESC, id DESC);
    CREATE INDEX reviews_product_state_idx ON reviews (product_id, state, created_at DESC, id DESC);

    CREATE TABLE product_ratings (
      product_id uuid PRIMARY KEY REFERENCES products(id) ON DELETE CASCADE,
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      approved_count integer NOT NULL DEFAULT 0,
      rating_sum integer NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS product_ratings, reviews, idempotency_keys, stripe_events, store_payment_accounts,
      fulfillments, order_items, orders, store_order_counters, stock_reservations, checkout_sessions,
      cart_items, carts CASCADE;
  `);
}
