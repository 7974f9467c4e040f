import pg from 'pg';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';

interface Statement {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * The storefront's prepared reads must let PostgreSQL keep one plan per connection: a statement
 * whose generic plan looks worse than a custom one (a `LIMIT $n` is estimated at 10% of the table)
 * is re-planned on every execution, which costs about as much as running it. Each prepared shape
 * the storefront sends is run here as the driver runs it, then pg_prepared_statements must show
 * the generic plan in use.
 */
t.test('prepared storefront reads keep their generic plan instead of re-planning per request', async (t) => {
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '0' } });
  const owner = await signupOwner(app);
  // Enough products that a 10% row estimate prices a hash join over every document above the
  // page's own plan (with a handful of rows both plans cost the same and the test would prove nothing).
  await app.ctx.db.raw(
    `insert into products (store_id, title, slug, description, status, tags, min_price, max_price, created_at)
     select ?, (array['Linen','Wool','Denim'])[1 + g % 3] || ' Shirt ' || g, 'p-' || g, 'A shirt', 'active', array['home'], 1000 + g % 50, 1000 + g % 50,
            timestamptz '2026-01-01' + g * interval '1 second'
       from generate_series(1, 3000) g`,
    [owner.store.id]
  );
  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Summer', isPublished: true }, ...admin(owner) });
  t.equal(collection.status, 201);
  await app.ctx.db.raw(
    `insert into collection_products (store_id, collection_id, product_id, position)
     select store_id, ?, id, row_number() over (order by created_at) from products where store_id = ? and created_at < timestamptz '2026-01-01' + interval '500 seconds'`,
    [collection.body.data.collection.id, owner.store.id]
  );
  await app.ctx.db.raw('analyze products; analyze storefront_products; analyze collection_products');

  const sf = { storefrontToken: owner.storefrontToken };
  const first = await app.request({ url: '/storefront/products?limit=20', ...sf });
  t.equal(first.status, 200);
  const urls = [
    '/storefront/products?limit=20',
    `/storefront/products?limit=20&cursor=${first.body.meta.pagination.nextCursor}`,
    '/storefront/products?limit=12&sort=price_asc',
    '/storefront/products?sort=title&inStock=true',
    '/storefront/products?collection=summer',
    '/storefront/products?q=linen%20shirt',
    '/storefront/products/p-42',
    '/storefront/collections',
    '/storefront/collections/summer'
  ];

  // The statements exactly as the service sends them (its reads go to pg's client directly).
  const sent = new Map<string, Statement>();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as Partial<Statement> | string;
    if (typeof config === 'object' && config?.name && config.text) sent.set(config.name, config as Statement);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  const named = new Map<string, string>();
  try {
    for (const url of urls) {
      const before = new Set(sent.keys());
      const response = await app.request({ url, ...sf });
      t.equal(response.status, 200, url);
      // The audit seal (prepared statements of its own) may run meanwhile for the admin writes above: not the storefront's.
      const added = [...sent.keys()].filter((name) => !before.has(name) && !/\baudit_(log|pending)\b|'audit:'/.test(sent.get(name)!.text));
      t.equal(added.length, 1, `${url}: sent as one prepared statement` + (added.length === 1 ? "" : ` (${added.map((name) => sent.get(name)!.text.slice(0, 80)).join(" | ")})`));
      if (added[0]) named.set(url, added[0]);
    }
  } finally {
    pg.Client.prototype.query = query;
  }

  const client = new pg.Client({ connectionString: app.ctx.config.databaseUrl });
  await client.connect();
  t.teardown(() => client.end());
  for (const [url, name] of named) {
    const statement = sent.get(name)!;
    // The plan cache compares its generic plan with the custom ones after five executions.
    for (let i = 0; i < 8; i++) await client.query({ name, text: statement.text, values: statement.values });
    const { rows } = await client.query('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [name]);
    t.ok(Number(rows[0].generic_plans) >= 3, `${url}: runs on its generic plan (generic ${rows[0].generic_plans}, custom ${rows[0].custom_plans})`);
  }
});
