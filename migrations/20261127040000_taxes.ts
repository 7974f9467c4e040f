import type { Knex } from 'knex';

/**
 * Taxes (issue #34 parts 2–5, docs/taxes.md).
 * - `tax_regions` (module taxes): a country, optionally one subdivision (`region`, ISO 3166-2 without the
 *   country prefix, upper case: 'CA' for US-CA), a default rate in basis points, rates per tax class and
 *   whether shipping is taxed. One row per (store, country, region); region '' is the country's row.
 * - `stores.prices_include_tax`, `stores.tax_provider` ('rates' | 'stripe_tax').
 * - `product_variants.tax_class` (null: the region's default rate), `customers.tax_exempt`, `carts.shipping_region`
 *   (the checkout address's subdivision, so the cart shows the tax of its state).
 * - Orders keep what was charged: `tax_total`, `prices_include_tax`, the shipping line's `shipping_tax_lines`,
 *   the provider and its reference (Stripe Tax calculation / transaction); each item its `tax_lines`,
 *   `tax_amount` and `discount_amount` (its share of an order discount). Refunds record the tax they give
 *   back (`tax_amount`, `tax_lines`) so the tax report can net it out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE tax_regions (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
      region text NOT NULL DEFAULT '' CHECK (region ~ '^[A-Z0-9]{0,3}$'),
      name text NOT NULL,
      rate integer NOT NULL CHECK (rate BETWEEN 0 AND 10000),
      class_rates jsonb NOT NULL DEFAULT '{}'::jsonb,
      tax_shipping boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, country, region)
    );

    ALTER TABLE stores ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false,
                       ADD COLUMN tax_provider text NOT NULL DEFAULT 'rates' CHECK (tax_provider IN ('rates', 'stripe_tax'));
    ALTER TABLE product_variants ADD COLUMN tax_class text;
    ALTER TABLE customers ADD COLUMN tax_exempt boolean NOT NULL DEFAULT false;

    ALTER TABLE orders ADD COLUMN tax_total bigint NOT NULL DEFAULT 0,
                       ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false,
                       ADD COLUMN shipping_tax_lines jsonb NOT NULL DEFAULT '[]'::jsonb,
                       ADD COLUMN tax_provider text,
                       ADD COLUMN tax_reference text,
                       ADD COLUMN tax_transaction_id text;
    ALTER TABLE order_items ADD COLUMN tax_lines jsonb NOT NULL DEFAULT '[]'::jsonb,
                            ADD COLUMN tax_amount bigint NOT NULL DEFAULT 0,
                            ADD COLUMN discount_amount bigint NOT NULL DEFAULT 0;
    ALTER TABLE order_refunds ADD COLUMN tax_amount bigint NOT NULL DEFAULT 0,
                              ADD COLUMN tax_lines jsonb NOT NULL DEFAULT '[]'::jsonb;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE order_refunds DROP COLUMN IF EXISTS tax_lines, DROP COLUMN IF EXISTS tax_amount;
    ALTER TABLE order_items DROP COLUMN IF EXISTS discount_amount, DROP COLUMN IF EXISTS tax_amount, DROP COLUMN IF EXISTS tax_lines;
    ALTER TABLE orders DROP COLUMN IF EXISTS tax_transaction_id, DROP COLUMN IF EXISTS tax_reference, DROP COLUMN IF EXISTS tax_provider,
                       DROP COLUMN IF EXISTS shipping_tax_lines, DROP COLUMN IF EXISTS prices_include_tax, DROP COLUMN IF EXISTS tax_total;
    ALTER TABLE customers DROP COLUMN IF EXISTS tax_exempt;
    ALTER TABLE product_variants DROP COLUMN IF EXISTS tax_class;
    ALTER TABLE stores DROP COLUMN IF EXISTS tax_provider, DROP COLUMN IF EXISTS prices_include_tax;
    DROP TABLE IF EXISTS tax_regions;
  `);
}
