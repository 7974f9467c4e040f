import t, { type Test } from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { importAndWait } from '../../helpers/jobs.js';

type Row = Record<string, any> & { id: string };
type Key = (row: Row) => string | number;

/** Pages through a list `limit` at a time, following nextCursor; every row once, in order. */
async function pageThrough(app: TestApp, owner: Owner, url: string, field: string, sort: string) {
  const rows: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `sort=${encodeURIComponent(sort)}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await app.request({ url: `${url}?${query}`, ...admin(owner) });
    if (response.status !== 200) throw new Error(`${url} sort=${sort}: ${response.status} ${response.raw}`);
    rows.push(...response.body.data[field]);
    cursor = response.body.meta.pagination.nextCursor;
    pages += 1;
  } while (cursor && pages < 50);
  return rows;
}

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** The order a sort promises: its key, then the id, both ascending or both descending. */
function expected(rows: Row[], key: Key, descending: boolean): string[] {
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => sign * (compare(key(a), key(b)) || compare(a.id, b.id))).map((row) => row.id);
}

/** The values the document lists for a list's `sort` parameter: every one is tested below. */
function documentedSorts(document: any, path: string): string[] {
  const parameter = document.paths[`/api/v1${path}`].get.parameters.find((p: { name: string }) => p.name === 'sort');
  return parameter?.schema?.enum ?? [];
}

/** Each documented sort, across pages of 2, against the order its key promises; then what is refused. */
async function checkSorts(t: Test, app: TestApp, owner: Owner, path: string, field: string, keys: Record<string, Key>, defaultSort: string) {
  const document = (await app.request({ url: '/openapi.json' })).body;
  const sorts = documentedSorts(document, path);
  t.ok(sorts.length >= 4, `${path} documents its sorts: ${sorts.join(', ')}`);
  t.match(document.paths[`/api/v1${path}`].get.parameters.find((p: { name: string }) => p.name === 'sort').schema, { default: defaultSort }, 'and its default');
  const all = await pageThrough(app, owner, path, field, defaultSort);
  for (const sort of sorts) {
    const name = sort.replace(/^-/, '');
    const key = keys[name];
    if (!key) {
      t.fail(`${path}: no expectation for sort=${sort}; add one to this test`);
      continue;
    }
    const rows = await pageThrough(app, owner, path, field, sort);
    t.same(rows.map((row) => row.id), expected(all, key, sort.startsWith('-')), `${path}?sort=${sort}: every row once, in order, across pages`);
  }
  const unsorted = await app.request({ url: `${path}?limit=2`, ...admin(owner) });
  t.same(unsorted.body.data[field].map((row: Row) => row.id), expected(all, keys.createdAt!, true).slice(0, 2), `${path} without sort: ${defaultSort}`);

  const bad = await app.request({ url: `${path}?sort=id`, ...admin(owner) });
  t.equal(bad.status, 422, `${path}?sort=id is refused`);
  t.equal(bad.body.error.code, 'validation_failed');
  t.equal(bad.body.error.details[0].path, 'sort');
  const other = sorts.find((sort) => sort !== defaultSort && sort !== `-${defaultSort.replace(/^-/, '')}`)!;
  const first = await app.request({ url: `${path}?limit=2&sort=${other}`, ...admin(owner) });
  const foreign = await app.request({ url: `${path}?limit=2&sort=${defaultSort}&cursor=${first.body.meta.pagination.nextCursor}`, ...admin(owner) });
  t.equal(foreign.status, 422, `a cursor of sort=${other} does not continue sort=${defaultSort}`);
}

/**
 * Issue #31 (9): customers imported in one batch came back in no stated order. The list is newest
 * first (created, then id, descending: a batch shares its creation time, so the id decides within it),
 * says so, and takes `sort`; every sort holds across keyset pages, ties included.
 */

// One app for the tests without workers (issue #32); each signs up its own store, so none sees another's
// data. The customers test (an imports worker) builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('customers: a stated default order, and every sort across pages', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const job = await importAndWait(
    app,
    owner,
    [
      'email,first_name,last_name',
      'carol@example.com,Carol,Young',
      'ann@example.com,Ann,Lee',
      'bob@example.com,Bob,Lee',
      'dave@example.com,,',
      'erin@example.com,Erin,Adams',
      'frank@example.com,Frank,Zimmer',
      'gina@example.com,Gina,Moss'
    ].join('\n')
  );
  t.equal(job.status, 'completed', job.error ?? '');
  // Three of them buy (two orders of different sizes), so amounts spent differ and some tie at 0.
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Mug', [{ price: 1000, stock: 100 }]);
  for (const [email, quantity] of [['erin@example.com', 3], ['ann@example.com', 1], ['gina@example.com', 3]] as const) {
    const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity }], { email });
    t.equal((await confirm(app, owner, session.body.data.checkoutSession.id)).status, 200, `${email} buys`);
  }

  const customers = await pageThrough(app, owner, '/admin/customers', 'customers', '-createdAt');
  t.equal(customers.length, 7);
  const batches = new Set(customers.map((c) => c.createdAt));
  t.ok(batches.size < customers.length, `imported customers share creation times (${batches.size} distinct for ${customers.length}): the id orders them`);
  await checkSorts(
    t,
    app,
    owner,
    '/admin/customers',
    'customers',
    {
      createdAt: (c) => c.createdAt,
      email: (c) => c.email,
      name: (c) => `${c.lastName ?? ''} ${c.firstName ?? ''}`.toLowerCase(),
      totalSpent: (c) => c.totalSpent
    },
    '-createdAt'
  );
});

t.test('products: a stated default order, and every sort across pages', async (t) => {
  const owner = await signupOwner(app);
  for (const [title, price] of [['kettle', 3000], ['Apron', 1500], ['mug', 1500], ['Teapot', 4500], ['bowl', 800]] as const) {
    await createProduct(app, owner, { title, variants: [{ price }] });
  }
  await checkSorts(
    t,
    app,
    owner,
    '/admin/products',
    'products',
    {
      createdAt: (p) => p.createdAt,
      title: (p) => p.title.toLowerCase(),
      price: (p) => Math.min(...p.variants.map((v: { price: number }) => v.price))
    },
    '-createdAt'
  );
});

t.test('orders: a stated default order, and every sort across pages', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Mug', [{ price: 1000, stock: 100 }]);
  for (const quantity of [2, 5, 1, 2, 4]) {
    const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity }]);
    t.equal((await confirm(app, owner, session.body.data.checkoutSession.id)).status, 200);
  }
  await checkSorts(
    t,
    app,
    owner,
    '/admin/orders',
    'orders',
    { createdAt: (o) => o.createdAt, number: (o) => o.number, total: (o) => o.total },
    '-createdAt'
  );
});

/**
 * Every admin list (a GET whose answer holds an array) says in the document in which order it
 * comes, generated from the route table so a new list must say it too.
 */
t.test('every admin list states its order in the document', async (t) => {
  const document = (await app.request({ url: '/openapi.json' })).body;
  const components = document.components.schemas;
  const resolve = (schema: any): any => (schema?.$ref ? components[schema.$ref.split('/').pop()] : schema);
  let lists = 0;
  for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    const get = operations.get;
    if (!path.startsWith('/api/v1/admin/') || !get) continue;
    const data = resolve(resolve(get.responses['200']?.content?.['application/json']?.schema)?.properties?.data);
    // Arrays of records (not of strings, such as the payment provider's requirements).
    const arrays = Object.entries(data?.properties ?? {}).filter(([, schema]) => {
      const items = resolve(resolve(schema as object)?.items);
      return resolve(schema as object)?.type === 'array' && (items?.type === 'object' || items?.properties);
    });
    if (!arrays.length) continue;
    lists += 1;
    t.match(`${get.summary} ${get.description ?? ''}`, /\b(newest|oldest|most recently \w+|latest|first \w+) first\b|\bin (\w+ )?order\b|\bordered by\b/i, `GET ${path} (${arrays.map(([name]) => name).join(', ')}) states its order: ${get.summary}`);
  }
  t.ok(lists >= 15, `${lists} admin lists`);
});
