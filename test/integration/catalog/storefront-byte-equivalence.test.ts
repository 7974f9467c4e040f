import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct, multipart, TINY_PNG } from '../../helpers/catalog.js';
import { referenceCollection, referenceCollectionList, referenceProduct, referenceProductList } from '../../helpers/storefront-reference.js';

/**
 * The storefront answers with exactly the bytes the row-and-DTO implementation produced, for every
 * sort, filter and search, on every page, for products, collections and their pages. The cache is
 * off so every request takes the database path.
 */
t.test('storefront responses are byte-identical to the reference implementation', async (t) => {
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '0' } });
  const owner = await signupOwner(app);
  const storeId = owner.store.id;
  const sf = { storefrontToken: owner.storefrontToken };

  const mediaIds: string[] = [];
  for (const alt of ['A "quoted" dot \\ with backslash', 'Zeilenumbruch\nund Tab\t', null]) {
    const body = multipart({ filename: 'dot.png', contentType: 'image/png', data: TINY_PNG }, alt === null ? {} : { alt });
    const uploaded = await app.request({ method: 'POST', url: '/admin/store/media', ...body, ...admin(owner) });
    t.equal(uploaded.status, 201);
    mediaIds.push(uploaded.body.data.media.id);
  }

  const words = ['Linen Shirt', 'Wool Scarf', 'Denim Apron', 'Cotton Towel', 'Amber Candle', 'Ceramic Mug'];
  const odd = ['Crème brûlée "deluxe"', 'Emoji 🛍️ bag', 'Back\\slash </script>', 'Control \u0001 char \u2028 sep', 'Ünïcödé ß'];
  const productIds: string[] = [];
  for (let i = 0; i < 26; i++) {
    const title = i < odd.length ? odd[i]! : `${words[i % words.length]} ${i}`;
    const variants = Array.from({ length: 1 + (i % 3) }, (_, v) => ({
      sku: i % 4 === 0 && v === 0 ? null : `SKU-${i}-${v}`,
      title: `Size ${['S', 'M', 'L'][v]}`,
      optionValues: { Size: ['S', 'M', 'L'][v]!, ...(i % 2 ? { Colour: 'Blue "navy"' } : {}) },
      price: 1000 + ((i * 37) % 11) * 100 + v * 50,
      compareAtPrice: i % 3 === 0 ? null : 2500 + v,
      inventoryQuantity: (i + v) % 4 === 0 ? 0 : (i + v) % 5,
      inventoryPolicy: i % 7 === 0 ? 'continue' : 'deny'
    }));
    const product = await createProduct(app, owner, {
      title,
      description: i % 5 === 0 ? 'Heavy denim, with a cedarwood note.\nSecond line' : `Plain description ${i}`,
      status: i % 9 === 8 ? 'draft' : i % 13 === 12 ? 'archived' : 'active',
      tags: [['home', 'kitchen', 'bath'][i % 3]!, ...(i % 4 === 0 ? ['summer'] : [])],
      options: i % 2 ? [{ name: 'Size', values: ['S', 'M', 'L'] }, { name: 'Colour', values: ['Blue "navy"'] }] : [{ name: 'Size', values: ['S', 'M', 'L'] }],
      seo: i % 3 === 0 ? { title: `SEO ${title}`, description: null } : i % 3 === 1 ? { title: '', description: 'About "it"' } : undefined,
      mediaIds: i % 4 === 1 ? [mediaIds[i % 3]!, mediaIds[(i + 1) % 3]!] : i % 4 === 2 ? [mediaIds[2]!] : [],
      variants
    });
    productIds.push(product.id);
  }
  // Archive a variant: archived variants never show.
  const withArchived = await app.request({ url: `/admin/products/${productIds[2]}`, ...admin(owner) });
  const keep = withArchived.body.data.product.variants.slice(1).map((v: { id: string }) => ({ id: v.id }));
  t.equal((await app.request({ method: 'PATCH', url: `/admin/products/${productIds[2]}`, payload: { variants: keep }, ...admin(owner) })).status, 200);

  for (const [title, published, members] of [
    ['Summer "Edit"', true, [5, 1, 9, 3, 22, 14, 7, 8]],
    ['Empty', true, []],
    ['Hidden', false, [1, 2]],
    ['Kitchen', true, [10, 11, 12, 13]]
  ] as const) {
    const created = await app.request({
      method: 'POST',
      url: '/admin/collections',
      payload: { title, isPublished: published, description: `About ${title}`, productIds: members.map((n) => productIds[n]), mediaId: title === 'Kitchen' ? mediaIds[0] : null },
      ...admin(owner)
    });
    t.equal(created.status, 201);
  }
  const other = await signupOwner(app);
  await createProduct(app, other, { title: 'Foreign Linen', status: 'active', variants: [{ price: 1 }] });

  let compared = 0;
  const same = async (url: string, expected: string | null, label: string) => {
    const response = await app.request({ url, ...sf });
    if (expected === null) {
      t.equal(response.status, 404, `${label}: 404`);
    } else {
      t.equal(response.status, 200, `${label}: 200`);
      if (response.raw !== expected) t.equal(response.raw, expected, `${label}: same bytes`);
      compared++;
    }
    return response;
  };

  const filterSets: Array<Record<string, string | number | boolean>> = [
    {},
    { tag: 'home' },
    { tag: 'summer' },
    { inStock: true },
    { inStock: false },
    { minPrice: 1300, maxPrice: 1800 },
    { collection: 'summer-edit' },
    { collection: 'hidden' },
    { collection: 'nope' },
    { q: 'linen' },
    { q: 'denim' },
    { q: '"heavy denim" -mug' },
    { q: 'cedarwood', inStock: true },
    { q: 'shirt', tag: 'kitchen', minPrice: 1000 },
    // Searches read their own table (storefront_search): many matches over several pages, every
    // filter beside a search, terms found only in drafts or archived products, and odd text.
    { q: 'plain description' },
    { q: 'linen or wool' },
    { q: 'apron' },
    { q: 'summer', collection: 'summer-edit' },
    { q: 'description', collection: 'kitchen', inStock: false },
    { q: 'plain', maxPrice: 1500, inStock: true },
    { q: 'ünïcödé' },
    { q: '🛍️ bag' },
    { tag: 'kitchen', inStock: true, maxPrice: 2000, collection: 'kitchen' }
  ];
  for (const filters of filterSets) {
    const sorts = filters.q ? [undefined, 'relevance', 'newest', 'price_asc', 'price_desc', 'title'] : [undefined, 'newest', 'price_asc', 'price_desc', 'title'];
    for (const sort of sorts) {
      for (const limit of [20, 4]) {
        const query = { ...filters, ...(sort ? { sort } : {}) };
        let cursor: string | null = null;
        let pages = 0;
        do {
          const params = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), limit: String(limit), ...(cursor ? { cursor } : {}) });
          const expected = await referenceProductList(app.ctx, storeId, query as any, { limit, cursor: cursor ?? undefined });
          await same(`/storefront/products?${params}`, expected, `products?${params}`);
          cursor = JSON.parse(expected).meta.pagination.nextCursor;
          pages++;
        } while (cursor && pages < 20);
      }
    }
  }
  // Without limit: the default page size.
  await same('/storefront/products', await referenceProductList(app.ctx, storeId, {}, { limit: 20 }), 'default limit');

  for (const id of productIds) {
    const admin_ = await app.request({ url: `/admin/products/${id}`, ...admin(owner) });
    const slug = admin_.body.data.product.slug as string;
    await same(`/storefront/products/${slug}`, await referenceProduct(app.ctx, storeId, slug), `product ${slug}`);
    await same(`/storefront/products/${slug.toUpperCase()}`, await referenceProduct(app.ctx, storeId, slug), `product ${slug} upper-cased`);
  }
  await same('/storefront/products/foreign-linen', null, 'another store');

  for (const limit of [20, 1]) {
    let cursor: string | null = null;
    let pages = 0;
    do {
      const expected = await referenceCollectionList(app.ctx, storeId, { limit, cursor: cursor ?? undefined });
      await same(`/storefront/collections?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, expected, `collections limit ${limit}`);
      cursor = JSON.parse(expected).meta.pagination.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    for (const slug of ['summer-edit', 'SUMMER-EDIT', 'empty', 'kitchen', 'hidden', 'nope']) {
      let inner: string | null = null;
      let innerPages = 0;
      do {
        const expected = await referenceCollection(app.ctx, storeId, slug, { limit: limit === 1 ? 3 : 20, cursor: inner ?? undefined });
        await same(`/storefront/collections/${slug}?limit=${limit === 1 ? 3 : 20}${inner ? `&cursor=${inner}` : ''}`, expected, `collection ${slug}`);
        inner = expected ? JSON.parse(expected).meta.pagination.nextCursor : null;
        innerPages++;
      } while (inner && innerPages < 10);
    }
  }
  t.ok(compared > 200, `${compared} responses compared byte for byte`);
  // Forged cursors (right shape, wrong types) are refused, never a 500.
  const forge = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
  const uuid = productIds[0];
  for (const url of [
    `/storefront/products?cursor=${forge(['newest', 'not a date', uuid])}`,
    `/storefront/products?cursor=${forge(['newest', '2026-01-01T00:00:00.000Z', 'not-a-uuid'])}`,
    `/storefront/products?sort=price_asc&cursor=${forge(['price_asc', 'abc', uuid])}`,
    `/storefront/products?q=linen&cursor=${forge(['relevance', null, uuid])}`,
    `/storefront/collections?cursor=${forge(['yesterday-ish', uuid])}`,
    `/storefront/collections?cursor=${forge(['2026', uuid])}`,
    `/storefront/collections/summer-edit?cursor=${forge([1.5, uuid])}`
  ]) {
    t.equal((await app.request({ url, ...sf })).status, 422, `forged cursor: ${url}`);
  }
  // The comparison covered what matters: images with URLs, escapes, variants, flags.
  const withImages = await app.request({ url: '/storefront/products?limit=50', ...sf });
  t.ok(withImages.raw.includes('"url":"http://shop.test/api/v1/public/media/'), 'image URLs carry APP_URL');
  t.ok(withImages.raw.includes('\\u0001'), 'control characters escaped as JSON.stringify does');
  t.ok(withImages.body.data.products.some((p: any) => p.images.length === 2 && p.featuredImage.id === p.images[0].id));
  const documents = await app.ctx.db('storefrontProducts').count({ n: '*' }).first();
  t.ok(Number(documents?.n) >= productIds.length, 'the reads come from the stored documents');
});
