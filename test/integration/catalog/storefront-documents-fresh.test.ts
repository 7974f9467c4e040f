import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct, multipart, TINY_PNG } from '../../helpers/catalog.js';
import { referenceProduct } from '../../helpers/storefront-reference.js';

/** Stored documents that differ from what the rows say right now (should always be none). */
async function laggingDocuments(app: TestApp): Promise<string[]> {
  const result = await app.ctx.db.raw(
    `select p.id from products p
       left join storefront_products s on s.product_id = p.id
       cross join lateral storefront_product_documents(array[p.id]) d
      where s.document is distinct from d.document`
  );
  return result.rows.map((row: { id: string }) => row.id);
}

// One app for the file (issue #32), both tests wanting the same settings; each test signs up its own
// store. The lag check looks at every product of the app: none may lag, whichever test wrote it.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '0' } });
});

t.test('a product document never lags its rows, whatever writes them', async (t) => {
  const owner = await signupOwner(app);
  const storeId = owner.store.id;
  const upload = async (alt: string) => {
    const response = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ filename: 'a.png', contentType: 'image/png', data: TINY_PNG }, { alt }), ...admin(owner) });
    return response.body.data.media.id as string;
  };
  const [m1, m2] = [await upload('one'), await upload('two')];
  const product = await createProduct(app, owner, {
    title: 'Linen Shirt',
    status: 'active',
    tags: ['summer'],
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    mediaIds: [m1],
    variants: [
      { sku: 'LS-S', title: 'S', price: 3000, inventoryQuantity: 1, optionValues: { Size: 'S' } },
      { sku: 'LS-M', title: 'M', price: 3200, inventoryQuantity: 1, optionValues: { Size: 'M' } }
    ]
  });
  const [vS, vM] = product.variants.map((v: { id: string }) => v.id) as [string, string];

  const check = async (label: string, slug = 'linen-shirt') => {
    t.same(await laggingDocuments(app), [], `${label}: every document matches its rows`);
    const api = await app.request({ url: `/storefront/products/${slug}`, storefrontToken: owner.storefrontToken });
    const expected = await referenceProduct(app.ctx, storeId, slug);
    if (expected === null) t.equal(api.status, 404, `${label}: 404 like the rows say`);
    else t.equal(api.raw, expected, `${label}: the API serves what the rows say`);
  };
  await check('created');

  const patch = (payload: Record<string, unknown>) => app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload, ...admin(owner) });
  t.equal((await patch({ title: 'Linen Shirt', description: 'Now "with" a description', tags: ['summer', 'linen'] })).status, 200);
  await check('product fields');
  const seo = await patch({ seo: { title: 'Cool', description: null }, options: [{ name: 'Size', values: ['S', 'M', 'L', 'XL'] }] });
  t.equal(seo.status, 200, seo.raw);
  await check('seo and options');
  t.equal((await patch({ variants: [{ id: vS, price: 2500, compareAtPrice: 4000 }, { id: vM }, { title: 'L', price: 3400, inventoryQuantity: 0, optionValues: { Size: 'L' } }] })).status, 200);
  await check('variant price, new variant');
  t.equal((await patch({ variants: [{ id: vM }] })).status, 200);
  await check('variants archived');
  t.equal((await patch({ mediaIds: [m2, m1] })).status, 200);
  await check('media reordered');
  t.equal((await patch({ mediaIds: [] })).status, 200);
  await check('media unlinked');
  t.equal((await patch({ mediaIds: [m1] })).status, 200);
  await app.ctx.db('media').where({ id: m1 }).update({ alt: 'renamed "alt"' });
  await check('media alt changed behind the services');
  t.equal((await app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${vM}/inventory`, payload: { delta: -1 }, ...admin(owner) })).status, 200);
  await check('stock to zero through the API');
  t.equal((await app.request({ method: 'PATCH', url: `/admin/products/${product.id}/status`, payload: { status: 'draft' }, ...admin(owner) })).status, 200);
  await check('unpublished');
  t.equal((await app.request({ method: 'PATCH', url: `/admin/products/${product.id}/status`, payload: { status: 'active' }, ...admin(owner) })).status, 200);
  await check('published again');
  t.equal((await patch({ slug: 'linen-shirt-2' })).status, 200);
  await check('slug changed', 'linen-shirt-2');
  await check('old slug', 'linen-shirt');

  // Writers that bypass the catalog services (a checkout module taking stock, a fix in psql).
  await app.ctx.db('productVariants').where({ id: vM }).update({ inventoryQuantity: 4 });
  await check('restocked in SQL', 'linen-shirt-2');
  await app.ctx.db('productVariants').where({ id: vM }).update({ inventoryPolicy: 'continue', inventoryQuantity: 0 });
  await check('policy changed in SQL', 'linen-shirt-2');
  await app.ctx.db('productVariants').where({ id: vM }).delete();
  await check('variant deleted in SQL', 'linen-shirt-2');
  await app.ctx.db.raw(`insert into product_variants (store_id, product_id, title, price, inventory_quantity) select store_id, id, 'XL', 999, 2 from products where id = ?`, [product.id]);
  await check('variant inserted in SQL', 'linen-shirt-2');
  await app.ctx.db('productMedia').insert({ storeId: owner.store.id, productId: product.id, mediaId: m2, position: 9 });
  await check('media linked in SQL', 'linen-shirt-2');
  await app.ctx.db('media').where({ id: m2 }).delete();
  await check('media deleted', 'linen-shirt-2');
});

t.test('concurrent sales of the last units of different variants leave the right stock flags', async (t) => {
  const owner = await signupOwner(app);
  const products = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      createProduct(app, owner, {
        title: `Mug ${i}`,
        status: 'active',
        variants: [
          { title: 'Red', price: 1000, inventoryQuantity: 1 },
          { title: 'Blue', price: 1000, inventoryQuantity: 1 },
          { title: 'Green', price: 1000, inventoryQuantity: 1 }
        ]
      })
    )
  );
  // Like a checkout: each transaction takes the last unit of one variant and holds its transaction
  // open a moment, so the transactions for the same product overlap.
  const sell = (variantId: string) =>
    app.ctx.db.transaction(async (trx) => {
      await trx.raw('update product_variants set inventory_quantity = inventory_quantity - 1 where id = ? and inventory_quantity > 0', [variantId]);
      await trx.raw('select pg_sleep(0.05)');
    });
  await Promise.all(products.flatMap((p) => p.variants.map((v: { id: string }) => sell(v.id))));

  t.same(await laggingDocuments(app), [], 'no document lags after the concurrent sales');
  const list = await app.request({ url: '/storefront/products', storefrontToken: owner.storefrontToken });
  t.equal(list.body.data.products.length, 6);
  for (const product of list.body.data.products) {
    t.equal(product.available, false, `${product.title}: sold out`);
    t.same(product.variants.map((v: { available: boolean }) => v.available), [false, false, false]);
  }
  const soldOut = await app.request({ url: '/storefront/products?inStock=false', storefrontToken: owner.storefrontToken });
  t.equal(soldOut.body.data.products.length, 6);

  // And back: restocking concurrently flips them all to available again.
  await Promise.all(products.map((p) => app.ctx.db.transaction(async (trx) => {
    await trx.raw('update product_variants set inventory_quantity = 2 where id = ?', [p.variants[1].id]);
    await trx.raw('select pg_sleep(0.05)');
  })));
  t.same(await laggingDocuments(app), []);
  const restocked = await app.request({ url: '/storefront/products', storefrontToken: owner.storefrontToken });
  t.ok(restocked.body.data.products.every((p: { available: boolean }) => p.available));
});
