import pg from 'pg';

/** One SQL statement on its own connection (bench seeding and toggles). */
export async function benchSql<T = any>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function benchApi(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/v1${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const payload = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(payload)}`);
  return payload.data;
}

/**
 * The checkout benches' catalog, straight in SQL (seeding is not what they measure): `count` active
 * products `bench-1`..`bench-<count>` of one variant each, priced 1000 + n, 100,000 in stock; the
 * variant of `scarce` (a slug) gets 1,000, the hot variant every shopper races for.
 */
export async function seedBenchVariants(databaseUrl: string, storeId: string, count: number, scarce: string | null = null): Promise<void> {
  await benchSql(
    databaseUrl,
    `with p as (insert into products (store_id, title, slug, status, min_price, max_price)
                select $1, 'Bench product ' || g, 'bench-' || g, 'active', 1000 + g, 1000 + g from generate_series(1, $2::int) g returning id, slug, min_price)
     insert into product_variants (store_id, product_id, sku, title, price, inventory_quantity)
     select $1, id, slug, 'Default', min_price, case when slug = $3 then 1000 else 100000 end from p`,
    [storeId, count, scarce]
  );
}

export interface CheckoutStore {
  storeId: string;
  storefrontToken: string;
  shippingMethodId: string;
  adminHeaders: Record<string, string>;
  /** 100 variants with 100,000 units each, as bench/checkout.ts spreads its shoppers. */
  variantIds: string[];
}

/** A store set up as bench/checkout.ts sets its own: manual payments, one shipping method, 100 well-stocked variants. */
export async function checkoutStore(api: string, databaseUrl: string, slug: string): Promise<CheckoutStore> {
  const signup = await benchApi(api, 'POST', '/auth/signup', {
    firstName: 'Bench', lastName: 'Mark', email: `${slug}@bench.example`, password: 'benchmark-password', storeName: 'Bench', storeSlug: slug
  });
  const adminHeaders = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': signup.store.id };
  const settings = await benchApi(api, 'PATCH', '/admin/store', { manualPaymentsEnabled: true, shippingMethods: [{ name: 'Standard', price: 500 }] }, adminHeaders);
  const storeId = signup.store.id as string;
  await seedBenchVariants(databaseUrl, storeId, 100);
  const variants = await benchSql<{ id: string }>(databaseUrl, 'select id from product_variants where store_id = $1', [storeId]);
  return {
    storeId,
    storefrontToken: signup.storefrontToken,
    shippingMethodId: (settings.store ?? settings).shippingMethods[0].id as string,
    adminHeaders,
    variantIds: variants.map((v) => v.id)
  };
}
