import type { Knex } from 'knex';

/**
 * Shipping zones and rates (issue #34 part 1; docs/shipping.md).
 *
 * - `shipping_zones`: a store's zones: countries (ISO 3166-1 alpha-2; none = every country),
 *   optional regions (ISO 3166-2, `US-CA` or `CA`) and postcode patterns. `source` says who manages
 *   the zone: `store_setting` for the zones the old `shippingMethods` store setting wrote (one per
 *   entry; `PATCH /admin/store { shippingMethods }` replaces exactly those), `zones` for the rest.
 * - `shipping_rates`: a zone's rates. A rate's id is what a cart chooses (`carts.shipping_method_id`),
 *   unique in the store; text, because the old setting's method ids become rate ids unchanged.
 * - Variants carry `weight_grams` (null: unknown, counts as 0) and `requires_shipping` (default true),
 *   filled from the product CSV's kept `Variant Grams` / `Variant Requires Shipping` cells.
 * - Carts carry the rest of the destination (`shipping_region`, `shipping_postcode`) and the notice
 *   of a chosen rate that stopped applying (`shipping_method_dropped`).
 * - Every store's `shipping_methods` becomes one zone per entry with one flat rate of the same id,
 *   price and free-over amount. The column stays (deprecated): the old setting still writes it, and
 *   nothing reads it any more.
 * - The storefront product document gains each variant's `weightGrams` and `requiresShipping`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE shipping_zones (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL,
      countries text[] NOT NULL DEFAULT '{}',
      regions text[] NOT NULL DEFAULT '{}',
      postcodes text[] NOT NULL DEFAULT '{}',
      position integer NOT NULL DEFAULT 0,
      source text NOT NULL DEFAULT 'zones' CHECK (source IN ('zones', 'store_setting')),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (id, store_id)
    );
    CREATE INDEX shipping_zones_store_idx ON shipping_zones (store_id, position, created_at, id);

    CREATE TABLE shipping_rates (
      store_id uuid NOT NULL,
      id text NOT NULL,
      zone_id uuid NOT NULL,
      position integer NOT NULL DEFAULT 0,
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('flat', 'weight', 'subtotal', 'pickup')),
      price integer CHECK (price IS NULL OR price >= 0),
      bands jsonb,
      free_over integer CHECK (free_over IS NULL OR free_over >= 0),
      estimate jsonb,
      PRIMARY KEY (id, store_id),
      FOREIGN KEY (store_id, zone_id) REFERENCES shipping_zones (store_id, id) ON DELETE CASCADE
    );
    CREATE INDEX shipping_rates_zone_idx ON shipping_rates (store_id, zone_id, position);

    ALTER TABLE product_variants
      ADD COLUMN weight_grams integer CHECK (weight_grams IS NULL OR weight_grams >= 0),
      ADD COLUMN requires_shipping boolean NOT NULL DEFAULT true;

    ALTER TABLE carts
      ADD COLUMN shipping_region text,
      ADD COLUMN shipping_postcode text,
      ADD COLUMN shipping_method_dropped jsonb;
  `);

  // The old setting, one zone per entry (its position in the list kept), one flat rate of the same id.
  await knex.raw(`
    WITH m AS (
      SELECT s.id AS store_id, e.value AS method, (e.ord - 1)::int AS position
        FROM stores s, jsonb_array_elements(s.shipping_methods) WITH ORDINALITY AS e(value, ord)
       WHERE jsonb_typeof(s.shipping_methods) = 'array'
    ), z AS (
      INSERT INTO shipping_zones (store_id, name, countries, position, source)
      SELECT store_id, coalesce(method->>'name', 'Shipping'),
             coalesce(ARRAY(SELECT upper(c) FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(method->'countries') = 'array' THEN method->'countries' ELSE '[]' END) AS c), '{}'),
             position, 'store_setting'
        FROM m
      RETURNING store_id, id, position
    )
    INSERT INTO shipping_rates (store_id, id, zone_id, position, name, type, price, free_over)
    SELECT z.store_id, coalesce(m.method->>'id', gen_random_uuid()::text), z.id, 0, coalesce(m.method->>'name', 'Shipping'), 'flat',
           coalesce((m.method->>'price')::numeric, 0)::integer, (m.method->>'freeOverAmount')::numeric::integer
      FROM z JOIN m ON m.store_id = z.store_id AND m.position = z.position
    ON CONFLICT DO NOTHING
  `);

  // Weights and shipping flags the product CSV kept as given.
  await knex.raw(`
    UPDATE product_variants
       SET weight_grams = CASE WHEN csv_fields->>'Variant Grams' ~ '^[0-9]{1,9}(\\.[0-9]*){0,1}$' THEN round((csv_fields->>'Variant Grams')::numeric)::integer ELSE weight_grams END,
           requires_shipping = CASE WHEN lower(csv_fields->>'Variant Requires Shipping') IN ('false', 'no', '0') THEN false ELSE requires_shipping END
     WHERE csv_fields->>'Variant Grams' IS NOT NULL OR csv_fields->>'Variant Requires Shipping' IS NOT NULL
  `);

  await knex.raw(documentsFunction(true));
  await knex.raw(variantsTrigger(true));
  await refreshAll(knex);
}

/** The storefront document with (or, for down, without) the variants' shipping fields. */
const documentsFunction = (shippingFields: boolean) => `
  CREATE OR REPLACE FUNCTION storefront_product_documents(ids uuid[]) RETURNS TABLE (product_id uuid, document text)
    LANGUAGE sql STABLE AS $$
      SELECT p.id,
        '{"id":"' || p.id || '","title":' || to_json(p.title)::text || ',"slug":' || to_json(p.slug)::text
        || ',"description":' || to_json(p.description)::text || ',"tags":' || array_to_json(p.tags)::text
        || ',"options":' || storefront_json(p.options)
        || ',"seo":{"title":' || coalesce(to_json(p.seo->>'title')::text, 'null')
        || ',"description":' || coalesce(to_json(p.seo->>'description')::text, 'null') || '}'
        || ',"price":' || p.min_price || ',"priceRange":{"min":' || p.min_price || ',"max":' || p.max_price || '}'
        || ',"compareAtPrice":' || coalesce(v.compare_at_price::text, 'null')
        || ',"available":' || coalesce(v.available, false)::text
        || ',"featuredImage":' || coalesce(m.first_image, 'null')
        || ',"images":[' || coalesce(m.images, '') || ']'
        || ',"variants":[' || coalesce(v.variants, '') || ']'
        || ',"createdAt":' || storefront_timestamp(p.created_at) || ',"updatedAt":' || storefront_timestamp(p.updated_at) || '}'
      FROM products p
      LEFT JOIN LATERAL (
        SELECT max(pv.compare_at_price) AS compare_at_price,
               bool_or(pv.inventory_policy = 'continue' OR pv.inventory_quantity > 0) AS available,
               string_agg('{"id":"' || pv.id || '","sku":' || coalesce(to_json(pv.sku)::text, 'null')
                 || ',"title":' || to_json(pv.title)::text || ',"optionValues":' || storefront_json(pv.option_values)
                 || ',"price":' || pv.price || ',"compareAtPrice":' || coalesce(pv.compare_at_price::text, 'null')
                 || ',"available":' || (pv.inventory_policy = 'continue' OR pv.inventory_quantity > 0)::text
                 ${shippingFields ? `|| ',"weightGrams":' || coalesce(pv.weight_grams::text, 'null') || ',"requiresShipping":' || pv.requires_shipping::text` : ''}
                 || '}',
                 ',' ORDER BY pv.position, pv.created_at, pv.id) AS variants
          FROM product_variants pv
         WHERE pv.product_id = p.id AND pv.archived_at IS NULL
      ) v ON true
      LEFT JOIN LATERAL (
        SELECT string_agg(img.json, ',' ORDER BY img.position) AS images,
               (array_agg(img.json ORDER BY img.position))[1] AS first_image
          FROM (SELECT pm.position,
                       '{"id":"' || md.id || '","url":"' || chr(1) || md.id || '","alt":' || coalesce(to_json(md.alt)::text, 'null')
                       || ',"width":' || coalesce(md.width::text, 'null') || ',"height":' || coalesce(md.height::text, 'null') || '}' AS json
                  FROM product_media pm JOIN media md ON md.id = pm.media_id
                 WHERE pm.product_id = p.id) img
      ) m ON true
      WHERE p.id = ANY(ids)
    $$`;

const variantsTrigger = (shippingFields: boolean) => `
  CREATE OR REPLACE FUNCTION storefront_products_from_variants() RETURNS trigger
    LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM refresh_storefront_products(ARRAY(SELECT DISTINCT product_id FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM refresh_storefront_products(ARRAY(SELECT DISTINCT product_id FROM old_rows));
    ELSE
      PERFORM refresh_storefront_products(ARRAY(
        SELECT DISTINCT x.product_id FROM (
          SELECT n.product_id AS new_product, o.product_id AS old_product
            FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE (n.product_id, n.sku, n.title, n.option_values, n.price, n.compare_at_price, n.position, n.archived_at, n.created_at,
                  ${shippingFields ? 'n.weight_grams, n.requires_shipping,' : ''}
                  n.inventory_policy = 'continue' OR n.inventory_quantity > 0)
                 IS DISTINCT FROM
                 (o.product_id, o.sku, o.title, o.option_values, o.price, o.compare_at_price, o.position, o.archived_at, o.created_at,
                  ${shippingFields ? 'o.weight_grams, o.requires_shipping,' : ''}
                  o.inventory_policy = 'continue' OR o.inventory_quantity > 0)
        ) changed
        CROSS JOIN LATERAL (VALUES (changed.new_product), (changed.old_product)) AS x(product_id)));
    END IF;
    RETURN NULL;
  END $$`;

/** Rebuilds every product's document, a thousand products per statement. */
async function refreshAll(knex: Knex): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await knex.raw('SELECT id FROM products WHERE id > ? ORDER BY id LIMIT 1000', [after]);
    if (!rows.length) return;
    await knex.raw('SELECT refresh_storefront_products(?::uuid[])', [rows.map((row: { id: string }) => row.id)]);
    after = rows[rows.length - 1].id;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(documentsFunction(false));
  await knex.raw(variantsTrigger(false));
  await knex.raw(`
    ALTER TABLE carts DROP COLUMN IF EXISTS shipping_method_dropped, DROP COLUMN IF EXISTS shipping_postcode, DROP COLUMN IF EXISTS shipping_region;
    ALTER TABLE product_variants DROP COLUMN IF EXISTS requires_shipping, DROP COLUMN IF EXISTS weight_grams;
    DROP TABLE IF EXISTS shipping_rates;
    DROP TABLE IF EXISTS shipping_zones;
  `);
  await refreshAll(knex);
}
