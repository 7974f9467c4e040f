import type { Knex } from 'knex';

/**
 * Catalog: media, products with variants, the inventory ledger, collections.
 *
 * - `created_at` is timestamptz(3) on listed tables so a keyset cursor (a JS Date, millisecond
 *   precision) compares exactly with the stored value.
 * - `products.min_price` / `max_price` are kept by the catalog service whenever variants change
 *   (prices only change through it), so price sorts and filters run on a products index.
 * - "in stock" is computed with EXISTS over the variants: inventory changes (checkout included)
 *   touch only the variant row, never the product, so concurrent sales never contend on it.
 * - `search` is generated from title, tags and description, weighted in that order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE media (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      storage_key text NOT NULL,
      content_type text NOT NULL,
      size integer NOT NULL CHECK (size >= 0),
      width integer,
      height integer,
      alt text,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX media_store_idx ON media (store_id, created_at DESC, id DESC);

    -- array_to_string is only STABLE; tags are text, so this wrapper is safely IMMUTABLE.
    CREATE FUNCTION catalog_tags_text(text[]) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string($1, ' '), '') $$;

    CREATE TABLE products (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      title text NOT NULL,
      slug text NOT NULL,
      description text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'archived')),
      tags text[] NOT NULL DEFAULT '{}',
      options jsonb NOT NULL DEFAULT '[]',
      seo jsonb NOT NULL DEFAULT '{}',
      min_price integer NOT NULL DEFAULT 0,
      max_price integer NOT NULL DEFAULT 0,
      search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, title), 'A') ||
        setweight(to_tsvector('english'::regconfig, catalog_tags_text(tags)), 'B') ||
        setweight(to_tsvector('english'::regconfig, description), 'C')
      ) STORED,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX products_store_slug_key ON products (store_id, lower(slug));
    CREATE INDEX products_store_created_idx ON products (store_id, created_at DESC, id DESC);
    CREATE INDEX products_store_status_created_idx ON products (store_id, status, created_at DESC, id DESC);
    CREATE INDEX products_store_status_price_idx ON products (store_id, status, min_price, id);
    CREATE INDEX products_store_status_title_idx ON products (store_id, status, lower(title), id);
    CREATE INDEX products_search_idx ON products USING gin (search);
    CREATE INDEX products_tags_idx ON products USING gin (tags);

    CREATE TABLE product_variants (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
      sku text,
      title text NOT NULL,
      option_values jsonb NOT NULL DEFAULT '{}',
      price integer NOT NULL CHECK (price >= 0),
      compare_at_price integer CHECK (compare_at_price IS NULL OR compare_at_price >= 0),
      inventory_quantity integer NOT NULL DEFAULT 0,
      inventory_policy text NOT NULL DEFAULT 'deny' CHECK (inventory_policy IN ('deny', 'continue')),
      position integer NOT NULL DEFAULT 0,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT product_variants_stock_not_negative CHECK (inventory_policy = 'continue' OR inventory_quantity >= 0)
    );
    -- Archived variants give their SKU back.
    CREATE UNIQUE INDEX product_variants_store_sku_key ON product_variants (store_id, lower(sku))
      WHERE sku IS NOT NULL AND archived_at IS NULL;
    CREATE INDEX product_variants_product_idx ON product_variants (product_id, position) WHERE archived_at IS NULL;
    CREATE INDEX product_variants_low_stock_idx ON product_variants (store_id, inventory_policy, inventory_quantity);

    CREATE TABLE inventory_ledger (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      variant_id uuid NOT NULL REFERENCES product_variants(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      delta integer NOT NULL,
      reason text,
      quantity_after integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX inventory_ledger_variant_idx ON inventory_ledger (variant_id, created_at DESC);
    CREATE INDEX inventory_ledger_store_idx ON inventory_ledger (store_id, created_at DESC);

    CREATE TABLE product_media (
      product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
      media_id uuid NOT NULL REFERENCES media(id) ON DELETE CASCADE,
      position integer NOT NULL,
      PRIMARY KEY (product_id, media_id)
    );
    CREATE INDEX product_media_media_idx ON product_media (media_id);

    CREATE TABLE collections (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      title text NOT NULL,
      slug text NOT NULL,
      description text NOT NULL DEFAULT '',
      is_published boolean NOT NULL DEFAULT false,
      media_id uuid REFERENCES media(id) ON DELETE SET NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX collections_store_slug_key ON collections (store_id, lower(slug));
    CREATE INDEX collections_store_created_idx ON collections (store_id, created_at DESC, id DESC);
    CREATE INDEX collections_store_published_idx ON collections (store_id, is_published, created_at DESC, id DESC);

    CREATE TABLE collection_products (
      collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
      position integer NOT NULL,
      PRIMARY KEY (collection_id, product_id)
    );
    CREATE INDEX collection_products_order_idx ON collection_products (collection_id, position, product_id);
    CREATE INDEX collection_products_product_idx ON collection_products (product_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS collection_products, collections, product_media, inventory_ledger,
      product_variants, products, media CASCADE;
    DROP FUNCTION IF EXISTS catalog_tags_text(text[]);
  `);
}
