import pg from 'pg';

/**
 * Seeds `count` active products with `variantsPerProduct` variants into one store, straight in SQL
 * (generate_series), in one transaction. Titles, tags and prices vary so every filter and sort has
 * something to do; one product in 100 mentions "cedarwood" in its description only.
 */
export async function seedCatalog(databaseUrl: string, storeId: string, count: number, variantsPerProduct = 3): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO products (store_id, title, slug, description, status, tags, min_price, max_price, created_at)
       SELECT $1,
              (array['Cotton','Linen','Wool','Denim','Silk'])[1 + g % 5] || ' ' || (array['Shirt','Mug','Towel','Candle','Apron'])[1 + (g / 5) % 5] || ' ' || g,
              'product-' || g,
              'Description of product ' || g || CASE WHEN g % 100 = 0 THEN ' with a rare cedarwood note' ELSE '' END,
              'active',
              array[(array['home','kitchen','bath','summer'])[1 + g % 4]],
              1000 + (g % 97) * 10,
              1000 + (g % 97) * 10 + ($3 - 1) * 100,
              timestamptz '2026-01-01' + g * interval '1 second'
         FROM generate_series(1, $2::int) g`,
      [storeId, count, variantsPerProduct]
    );
    await client.query(
      `INSERT INTO product_variants (store_id, product_id, sku, title, price, compare_at_price, inventory_quantity, position, option_values)
       SELECT p.store_id, p.id, p.slug || '-' || v, 'Variant ' || v, p.min_price + (v - 1) * 100, p.min_price + 500, (v * 7 + abs(hashtext(p.slug))) % 20, v - 1, '{}'
         FROM products p, generate_series(1, $2::int) v
        WHERE p.store_id = $1`,
      [storeId, variantsPerProduct]
    );
    await client.query('COMMIT');
    await client.query('ANALYZE products; ANALYZE product_variants;');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

/** Signs up a bench operator through the API; returns the store id and storefront token. */
export async function signupBenchStore(api: string, slug: string): Promise<{ storeId: string; storefrontToken: string }> {
  const response = await fetch(`${api}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'Bench', lastName: 'Mark', email: `${slug}@example.com`, password: 'benchmark-password', storeName: 'Bench', storeSlug: slug })
  });
  if (response.status !== 201) throw new Error(`bench signup failed: ${response.status} ${await response.text()}`);
  const { data } = (await response.json()) as { data: { store: { id: string }; storefrontToken: string } };
  return { storeId: data.store.id, storefrontToken: data.storefrontToken };
}
