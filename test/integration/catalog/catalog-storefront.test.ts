import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('storefront catalog: visibility, search, filters, sorts, pagination', async (t) => {
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const specs = [
    { title: 'Amber Candle', description: 'Smells of cedarwood and smoke.', tags: ['home'], price: 2500, qty: 5 },
    { title: 'Blue Mug', description: 'Stoneware mug.', tags: ['kitchen'], price: 1200, qty: 0 },
    { title: 'Cotton Towel', description: 'Soft and absorbent.', tags: ['home', 'bath'], price: 1800, qty: 3 },
    { title: 'Denim Apron', description: 'Heavy denim.', tags: ['kitchen'], price: 3200, qty: 1 },
    { title: 'Enamel Pot', description: 'For stews.', tags: ['kitchen'], price: 4500, qty: 0, policy: 'continue' }
  ];
  const ids: Record<string, string> = {};
  for (const s of specs) {
    const p = await createProduct(app, owner, {
      title: s.title,
      description: s.description,
      tags: s.tags,
      status: 'active',
      variants: [{ sku: s.title, price: s.price, compareAtPrice: s.price + 500, inventoryQuantity: s.qty, inventoryPolicy: s.policy ?? 'deny' }]
    });
    ids[s.title] = p.id;
  }
  await createProduct(app, owner, { title: 'Secret Draft', description: 'cedarwood', status: 'draft', variants: [{ price: 1 }] });
  await createProduct(app, owner, { title: 'Old Archived', description: 'cedarwood', status: 'archived', variants: [{ price: 1 }] });
  const other = await signupOwner(app);
  await createProduct(app, other, { title: 'Foreign Candle', description: 'cedarwood', status: 'active', variants: [{ price: 1 }] });

  const titles = (response: { body: any }) => response.body.data.products.map((p: { title: string }) => p.title);

  const all = await app.request({ url: '/storefront/products', ...sf });
  t.equal(all.status, 200);
  t.same(titles(all), ['Enamel Pot', 'Denim Apron', 'Cotton Towel', 'Blue Mug', 'Amber Candle'], 'active only, newest first, own store only');
  const candle = all.body.data.products[4];
  t.match(candle, { slug: 'amber-candle', price: 2500, compareAtPrice: 3000, available: true, priceRange: { min: 2500, max: 2500 }, images: [], featuredImage: null });
  t.match(candle.variants[0], { price: 2500, compareAtPrice: 3000, available: true });
  t.notOk('inventoryQuantity' in candle.variants[0], 'stock counts stay private');
  t.equal(all.body.data.products[3].available, false, 'sold-out deny variant is unavailable');

  const search = await app.request({ url: '/storefront/products?q=cedarwood', ...sf });
  t.same(titles(search), ['Amber Candle'], 'found by a word only in its description; drafts, archived and other stores excluded');
  const stemmed = await app.request({ url: '/storefront/products?q=towels', ...sf });
  t.same(titles(stemmed), ['Cotton Towel'], 'English stemming');
  const byTagWord = await app.request({ url: '/storefront/products?q=bath', ...sf });
  t.same(titles(byTagWord), ['Cotton Towel'], 'tags are searchable');
  const phrase = await app.request({ url: '/storefront/products?q=' + encodeURIComponent('"heavy denim" -mug'), ...sf });
  t.same(titles(phrase), ['Denim Apron'], 'web search syntax');

  t.same(titles(await app.request({ url: '/storefront/products?tag=kitchen&sort=title', ...sf })), ['Blue Mug', 'Denim Apron', 'Enamel Pot']);
  t.same(titles(await app.request({ url: '/storefront/products?minPrice=1800&maxPrice=3200&sort=price_asc', ...sf })), ['Cotton Towel', 'Amber Candle', 'Denim Apron']);
  t.same(titles(await app.request({ url: '/storefront/products?inStock=true&sort=title', ...sf })), ['Amber Candle', 'Cotton Towel', 'Denim Apron', 'Enamel Pot'], 'continue policy counts as in stock');
  t.same(titles(await app.request({ url: '/storefront/products?inStock=false', ...sf })), ['Blue Mug']);
  t.same(titles(await app.request({ url: '/storefront/products?sort=price_desc', ...sf })), ['Enamel Pot', 'Denim Apron', 'Amber Candle', 'Cotton Towel', 'Blue Mug']);
  t.same(titles(await app.request({ url: '/storefront/products?sort=price_asc', ...sf })), ['Blue Mug', 'Cotton Towel', 'Amber Candle', 'Denim Apron', 'Enamel Pot']);

  // Pagination works for every sort, with no gaps or repeats.
  for (const sort of ['newest', 'price_asc', 'price_desc', 'title']) {
    const full = titles(await app.request({ url: `/storefront/products?sort=${sort}`, ...sf }));
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: { body: any; status: number } = await app.request({ url: `/storefront/products?sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, ...sf });
      t.equal(response.status, 200);
      walked.push(...titles(response));
      cursor = response.body.meta.pagination.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    t.same(walked, full, `${sort}: cursor pages cover the list once`);
    t.equal(pages, 3);
  }
  const firstPage = await app.request({ url: '/storefront/products?sort=title&limit=2', ...sf });
  const crossSort = await app.request({ url: `/storefront/products?sort=price_asc&cursor=${firstPage.body.meta.pagination.nextCursor}`, ...sf });
  t.equal(crossSort.status, 422, 'a cursor from another sort is refused');
  t.equal((await app.request({ url: '/storefront/products?sort=random', ...sf })).status, 422);
  t.equal((await app.request({ url: '/storefront/products?minPrice=-1', ...sf })).status, 422);
  t.equal((await app.request({ url: '/storefront/products?sort=relevance', ...sf })).status, 422, 'relevance needs q');
  t.equal((await app.request({ url: '/storefront/products' })).status, 401);

  // Product by slug: only active products.
  const one = await app.request({ url: '/storefront/products/amber-candle', ...sf });
  t.equal(one.status, 200);
  t.equal(one.body.data.product.id, ids['Amber Candle']);
  t.equal((await app.request({ url: '/storefront/products/secret-draft', ...sf })).status, 404, 'draft is 404');
  t.equal((await app.request({ url: '/storefront/products/old-archived', ...sf })).status, 404, 'archived is 404');
  t.equal((await app.request({ url: '/storefront/products/foreign-candle', ...sf })).status, 404, 'another store is 404');
  await app.request({ method: 'PATCH', url: `/admin/products/${ids['Amber Candle']}/status`, payload: { status: 'archived' }, ...admin(owner) });
  t.equal((await app.request({ url: '/storefront/products/amber-candle', ...sf })).status, 404, 'archiving hides it at once');
  t.same(titles(await app.request({ url: '/storefront/products?q=cedarwood', ...sf })), []);
});

t.test('storefront catalog: cached reads follow every write at once', async (t) => {
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const product = await createProduct(app, owner, { title: 'Lamp', status: 'active', variants: [{ sku: 'LAMP', price: 900, inventoryQuantity: 1 }] });
  const read = async () => (await app.request({ url: '/storefront/products/lamp', ...sf })).body.data.product;
  const list = async () => (await app.request({ url: '/storefront/products', ...sf })).body.data.products;
  t.equal((await read()).available, true);
  t.equal((await list())[0].available, true);

  const sold = await app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${product.variants[0].id}/inventory`, payload: { delta: -1 }, ...admin(owner) });
  t.equal(sold.status, 200);
  t.equal((await read()).available, false, 'stock change visible immediately on the product');
  t.equal((await list())[0].available, false, 'and in the list');

  await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Desk Lamp', variants: [{ id: product.variants[0].id, price: 1100 }] }, ...admin(owner) });
  t.equal((await read()).title, 'Desk Lamp', 'rename visible');
  t.equal((await list())[0].price, 1100, 'price change visible');

  await app.request({ method: 'PATCH', url: `/admin/products/${product.id}/status`, payload: { status: 'draft' }, ...admin(owner) });
  t.equal((await app.request({ url: '/storefront/products/lamp', ...sf })).status, 404, 'unpublishing visible');
  t.same(await list(), []);

  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Lights', isPublished: true }, ...admin(owner) });
  t.equal((await app.request({ url: '/storefront/collections', ...sf })).body.data.collections.length, 1);
  await app.request({ method: 'PATCH', url: `/admin/collections/${collection.body.data.collection.id}`, payload: { isPublished: false }, ...admin(owner) });
  t.same((await app.request({ url: '/storefront/collections', ...sf })).body.data.collections, [], 'collection unpublish visible');
});
