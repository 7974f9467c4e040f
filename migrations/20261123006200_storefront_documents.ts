import type { Knex } from 'knex';

/**
 * Storefront product documents: each product's storefront JSON (variants, images, stock flags), as
 * the exact text the API sends, kept by triggers in the same transaction as every write to the rows
 * it is built from (products, product_variants, product_media, media), whoever writes them: the
 * catalog services, checkout taking stock, a bulk import, a hand-written fix. Storefront reads select
 * these documents through the existing products indexes and join them with string_agg.
 *
 * - Image URLs depend on APP_URL, which the database does not know: a document holds a U+0001 byte
 *   where the URL prefix goes, and the read replaces it. JSON text can never contain that byte raw
 *   (JSON escapes every control character), so only our markers match.
 * - The text is what JSON.stringify wrote for the old DTOs (key order, number and date formats,
 *   escaping); test/integration/catalog/storefront-byte-equivalence.test.ts holds the two together.
 * - Statement-level triggers with transition tables: a bulk write rebuilds each touched product
 *   once, set-based. Stock changes rebuild only when a variant's availability flips, so checkouts
 *   selling the same product do not queue on its document for every sale.
 * - Lost updates: the refresh locks the document rows first (in id order), then builds them in a
 *   new statement, whose snapshot sees every write committed by the transaction that held the lock
 *   before. Two concurrent sales of the last units of two variants leave the right flags.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(String.raw`
    CREATE TABLE storefront_products (
      product_id uuid PRIMARY KEY REFERENCES products(id) ON DELETE CASCADE,
      document text NOT NULL
    );

    -- A jsonb value as JavaScript's JSON.stringify writes what the pg driver parses from it: no
    -- spaces; object keys in jsonb order, except that integer-like keys come first, ascending.
    CREATE FUNCTION storefront_json(value jsonb) RETURNS text
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE
      result text;
    BEGIN
      CASE jsonb_typeof(value)
        WHEN 'object' THEN
          SELECT '{' || coalesce(string_agg(to_json(e.key)::text || ':' || storefront_json(e.value), ','
                   ORDER BY e.key ~ '^(0|[1-9][0-9]{0,8})$' DESC,
                            CASE WHEN e.key ~ '^(0|[1-9][0-9]{0,8})$' THEN e.key::bigint END,
                            e.ord), '') || '}'
            INTO result FROM jsonb_each(value) WITH ORDINALITY AS e(key, value, ord);
        WHEN 'array' THEN
          SELECT '[' || coalesce(string_agg(storefront_json(e.value), ',' ORDER BY e.ord), '') || ']'
            INTO result FROM jsonb_array_elements(value) WITH ORDINALITY AS e(value, ord);
        WHEN 'number' THEN
          result := CASE WHEN value::text ~ '^-{0,1}[0-9]{1,15}$' THEN value::text ELSE (value::text::float8)::text END;
        ELSE
          result := value::text;
      END CASE;
      RETURN result;
    END $$;

    -- A timestamp as JSON.stringify(Date) writes it: UTC, milliseconds (truncated, like the driver).
    CREATE FUNCTION storefront_timestamp(value timestamptz) RETURNS text
      LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT '"' || to_char(value AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
      $$;

    CREATE FUNCTION storefront_product_documents(ids uuid[]) RETURNS TABLE (product_id uuid, document text)
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
                   || ',"available":' || (pv.inventory_policy = 'continue' OR pv.inventory_quantity > 0)::text || '}',
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
      $$;

    CREATE FUNCTION refresh_storefront_products(ids uuid[]) RETURNS void
      LANGUAGE plpgsql AS $$
    BEGIN
      IF ids IS NULL OR cardinality(ids) = 0 THEN
        RETURN;
      END IF;
      INSERT INTO storefront_products (product_id, document)
        SELECT p.id, '' FROM products p WHERE p.id = ANY(ids) ORDER BY p.id
        ON CONFLICT (product_id) DO NOTHING;
      PERFORM 1 FROM storefront_products s WHERE s.product_id = ANY(ids) ORDER BY s.product_id FOR UPDATE;
      -- A new statement: a new snapshot, taken after the locks were granted.
      UPDATE storefront_products s SET document = d.document
        FROM storefront_product_documents(ids) d
       WHERE s.product_id = d.product_id AND s.document IS DISTINCT FROM d.document;
    END $$;

    CREATE FUNCTION storefront_products_from_products() RETURNS trigger
      LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM refresh_storefront_products(ARRAY(SELECT DISTINCT id FROM new_rows));
      ELSE
        -- status is not in the document (reads filter on it): a publish rebuilds nothing.
        PERFORM refresh_storefront_products(ARRAY(
          SELECT DISTINCT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE (n.title, n.slug, n.description, n.tags, n.options, n.seo, n.min_price, n.max_price, n.created_at, n.updated_at)
                 IS DISTINCT FROM (o.title, o.slug, o.description, o.tags, o.options, o.seo, o.min_price, o.max_price, o.created_at, o.updated_at)));
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION storefront_products_from_variants() RETURNS trigger
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
                    n.inventory_policy = 'continue' OR n.inventory_quantity > 0)
                   IS DISTINCT FROM
                   (o.product_id, o.sku, o.title, o.option_values, o.price, o.compare_at_price, o.position, o.archived_at, o.created_at,
                    o.inventory_policy = 'continue' OR o.inventory_quantity > 0)
          ) changed
          CROSS JOIN LATERAL (VALUES (changed.new_product), (changed.old_product)) AS x(product_id)));
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION storefront_products_from_product_media() RETURNS trigger
      LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM refresh_storefront_products(ARRAY(SELECT DISTINCT product_id FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM refresh_storefront_products(ARRAY(SELECT DISTINCT product_id FROM old_rows));
      ELSE
        PERFORM refresh_storefront_products(ARRAY(SELECT product_id FROM new_rows UNION SELECT product_id FROM old_rows));
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION storefront_products_from_media() RETURNS trigger
      LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM refresh_storefront_products(ARRAY(
        SELECT DISTINCT pm.product_id FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN product_media pm ON pm.media_id = n.id
         WHERE (n.alt, n.width, n.height) IS DISTINCT FROM (o.alt, o.width, o.height)));
      RETURN NULL;
    END $$;

    CREATE TRIGGER storefront_products_insert AFTER INSERT ON products
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_products();
    CREATE TRIGGER storefront_products_update AFTER UPDATE ON products
      REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_products();

    CREATE TRIGGER storefront_variants_insert AFTER INSERT ON product_variants
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_variants();
    CREATE TRIGGER storefront_variants_update AFTER UPDATE ON product_variants
      REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_variants();
    CREATE TRIGGER storefront_variants_delete AFTER DELETE ON product_variants
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_variants();

    CREATE TRIGGER storefront_product_media_insert AFTER INSERT ON product_media
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_product_media();
    CREATE TRIGGER storefront_product_media_update AFTER UPDATE ON product_media
      REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_product_media();
    CREATE TRIGGER storefront_product_media_delete AFTER DELETE ON product_media
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_product_media();

    CREATE TRIGGER storefront_media_update AFTER UPDATE ON media
      REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_products_from_media();

    SELECT refresh_storefront_products(ARRAY(SELECT id FROM products));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS storefront_products_insert ON products;
    DROP TRIGGER IF EXISTS storefront_products_update ON products;
    DROP TRIGGER IF EXISTS storefront_variants_insert ON product_variants;
    DROP TRIGGER IF EXISTS storefront_variants_update ON product_variants;
    DROP TRIGGER IF EXISTS storefront_variants_delete ON product_variants;
    DROP TRIGGER IF EXISTS storefront_product_media_insert ON product_media;
    DROP TRIGGER IF EXISTS storefront_product_media_update ON product_media;
    DROP TRIGGER IF EXISTS storefront_product_media_delete ON product_media;
    DROP TRIGGER IF EXISTS storefront_media_update ON media;
    DROP FUNCTION IF EXISTS storefront_products_from_products(), storefront_products_from_variants(),
      storefront_products_from_product_media(), storefront_products_from_media(),
      refresh_storefront_products(uuid[]), storefront_product_documents(uuid[]),
      storefront_timestamp(timestamptz), storefront_json(jsonb);
    DROP TABLE IF EXISTS storefront_products;
  `);
}
