import pg from 'pg';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';

interface Statement {
  text: string;
  values: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/**
 * A storefront search reads only its own store's rows (migrations/20261130020000): the search index
 * is keyed per store, so the matches of another store with the same products are never fetched and
 * dropped by `store_id`, and the search costs what the store's catalog costs, whatever the others hold.
 */
t.test('a storefront search never reads another store’s matching rows', async (t) => {
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '0' } });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  for (const store of [owner, other]) {
    await app.ctx.db.raw(
      `insert into products (store_id, title, slug, description, status, tags, min_price, max_price, created_at)
       select ?, (array['Linen','Wool'])[1 + g % 2] || ' Shirt ' || g, 'p-' || g, 'A shirt', 'active', array['home'], 1000, 1000,
              timestamptz '2026-01-01' + g * interval '1 second'
         from generate_series(1, 400) g`,
      [store.store.id]
    );
  }
  await app.ctx.db.raw('analyze products; analyze storefront_search');

  const client = new pg.Client({ connectionString: app.ctx.config.databaseUrl });
  await client.connect();
  t.teardown(() => client.end());
  // The index path is what is under test, whatever the planner would pick for 800 rows.
  await client.query('set enable_seqscan = off');

  // A prefix search (the prepared ranked statement) and a phrase with an alternative.
  for (const url of ['/storefront/products?q=linen%20shirt', '/storefront/products?q=%22linen%20shirt%22%20or%20wool']) {
    const sent: Statement[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as Partial<Statement> | string;
      if (typeof config === 'object' && config?.text && /from storefront_search p/.test(config.text)) sent.push(config as Statement);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    let response;
    try {
      response = await app.request({ url, storefrontToken: owner.storefrontToken });
    } finally {
      pg.Client.prototype.query = query;
    }
    t.equal(response.status, 200, url);
    t.ok(response.body.data.products.length > 0, `${url}: found the store's products`);
    t.equal(sent.length, 1, `${url}: one search statement`);

    const { rows } = await client.query(`explain (analyze, format json) ${sent[0]!.text}`, sent[0]!.values);
    const plan = nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
    const scans = plan.filter((node) => node['Relation Name'] === 'storefront_search');
    t.ok(scans.length > 0, `${url}: reads the search rows`);
    t.ok(
      plan.some((node) => node['Index Name'] === 'storefront_search_idx'),
      `${url}: through the search index`
    );
    for (const scan of scans) {
      t.equal(scan['Rows Removed by Filter'] ?? 0, 0, `${url}: no other store's row fetched and dropped`);
      t.equal(scan['Rows Removed by Index Recheck'] ?? 0, 0, `${url}: no other store's row rechecked`);
    }
  }
});

/**
 * The per-store key and query are the vector and the query with a store tag before every lexeme:
 * for a row of the store they match exactly when the originals do, for every kind of term the
 * storefront sends (prefixes, phrases, negations, alternatives) and for lexemes with quotes.
 */
t.test('the per-store search key matches exactly what the search vector matches', async (t) => {
  const app = await buildApp(t);
  const store = '6c1f0c55-8a4e-4c0e-9d55-3b2a1f0e9a77';
  const vectors = [
    `setweight(to_tsvector('english', 'Linen Shirt 42'), 'A') || setweight(to_tsvector('english', 'summer home'), 'B') || setweight(to_tsvector('english', 'Woven from cedarwood fibres'), 'C')`,
    `to_tsvector('english', 'Shirt made of linen')`,
    `$$'it''s':1 'back\\\\slash':2 'linen':3$$::tsvector`,
    // Lexemes the parser never makes, which the key must still tag exactly: spaces beside quotes.
    `$$'trailing ':1 ' leading':2 'in side':3 'linen':4$$::tsvector`,
    `$$'linen' 'end '$$::tsvector`,
    `''::tsvector`
  ];
  const queries = [
    `'linen':* & 'shirt':*`,
    `'linen' <-> 'shirt'`,
    `'shirt' <-> 'linen'`,
    `'linen':* & !'cedarwood':*`,
    `'wool':* | 'cedarwood':*`,
    `('linen' <-> 'shirt') | 'summer':*`,
    `'lin':*`,
    `'it''s'`,
    `'back\\\\slash':*`,
    `'linen':*A`,
    `'linen':*C`,
    `'trailing ' & ' leading' & 'in side'`,
    `'end ':*`
  ];
  let compared = 0;
  for (const vector of vectors) {
    for (const query of queries) {
      const { rows } = await app.ctx.db.raw(
        `select (v @@ q) as plain, storefront_search_key(v, ?::uuid) @@ storefront_search_key_query(q, ?::uuid) as keyed,
                storefront_search_key(v, ?::uuid) @@ storefront_search_key_query(q, gen_random_uuid()) as elsewhere
           from (select ${vector} as v, $$${query}$$::tsquery as q) x`,
        [store, store, store]
      );
      const [row] = rows as Array<{ plain: boolean; keyed: boolean; elsewhere: boolean }>;
      t.equal(row!.keyed, row!.plain, `${vector} @@ ${query}`);
      if (row!.plain) t.notOk(row!.elsewhere, `${vector} @@ ${query}: not under another store's key`);
      compared++;
    }
  }
  t.equal(compared, vectors.length * queries.length);
});
