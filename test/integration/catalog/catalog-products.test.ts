import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; a test that changes the app itself (a route added, a
 * connection cut, other settings or workers) or counts what the whole app holds builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

const shirt = (sku: string) => ({
  title: 'Linen Shirt',
  description: 'A breathable shirt.',
  tags: ['summer', 'linen'],
  options: [{ name: 'Size', values: ['S', 'M'] }],
  variants: [
    { sku: `${sku}-S`, optionValues: { Size: 'S' }, price: 4900, compareAtPrice: 5900, inventoryQuantity: 3 },
    { sku: `${sku}-M`, optionValues: ['M'], price: 5400, inventoryQuantity: 0, inventoryPolicy: 'continue' }
  ],
  seo: { title: 'Linen shirt', description: 'Shirt' }
});

t.test('products: create, get, list, patch, status', async (t) => {
  const owner = await signupOwner(app);

  const created = await app.request({ method: 'POST', url: '/admin/products', payload: { ...shirt('LS'), title: '  Linen Shirt  ' }, ...admin(owner) });
  t.equal(created.status, 201, created.raw);
  const product = created.body.data.product;
  t.equal(product.title, 'Linen Shirt', 'title trimmed');
  t.equal(product.slug, 'linen-shirt', 'slug derived from the title');
  t.equal(product.status, 'draft', 'default status');
  t.equal(product.minPrice, 4900);
  t.equal(product.maxPrice, 5400);
  t.equal(product.variants.length, 2);
  t.same(product.variants[1].optionValues, { Size: 'M' }, 'array option values mapped onto option names');
  t.equal(product.variants[0].title, 'S', 'variant title from option values');
  t.equal(product.variants[0].compareAtPrice, 5900);
  t.equal(product.variants[1].inventoryPolicy, 'continue');
  t.equal(product.variants[1].available, true, 'continue policy is available at 0');
  t.same(product.seo, { title: 'Linen shirt', description: 'Shirt' });
  t.match(product.createdAt, /^\d{4}-\d\d-\d\dT/);

  const second = await createProduct(app, owner, { title: 'Linen shirt!', variants: [{ price: 100 }] });
  t.equal(second.slug, 'linen-shirt-2', 'colliding derived slug gets a suffix');
  const third = await createProduct(app, owner, { title: 'Linen Shirt', variants: [{ price: 100 }] });
  t.equal(third.slug, 'linen-shirt-3');

  const dup = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Other', slug: 'Linen-Shirt' }, ...admin(owner) });
  t.equal(dup.status, 409);
  t.equal(dup.body.error.code, 'slug_taken', 'explicit duplicate slug (case-insensitive)');

  const skuDup = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Dup', variants: [{ sku: 'ls-s', price: 1 }] }, ...admin(owner) });
  t.equal(skuDup.status, 409, 'sku unique per store, case-insensitively');
  t.equal(skuDup.body.error.code, 'conflict');
  t.equal(skuDup.body.error.details[0].path, 'variants.0.sku');
  t.equal((await app.ctx.db('products').where({ storeId: owner.store.id, title: 'Dup' })).length, 0, 'nothing left behind by the failed create');

  const got = await app.request({ url: `/admin/products/${product.id}`, ...admin(owner) });
  t.equal(got.status, 200);
  t.same(got.body.data.product.collections, []);
  t.equal(got.body.data.product.variants.length, 2);

  // Rename keeps the slug; an explicit slug changes it.
  const renamed = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Linen Shirt Deluxe' }, ...admin(owner) });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.data.product.slug, 'linen-shirt', 'slug stable on rename');
  t.equal(renamed.body.data.product.variants.length, 2, 'variants untouched when absent from the patch');
  t.equal(renamed.body.data.product.description, 'A breathable shirt.', 'absent fields unchanged');
  const reslug = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { slug: 'deluxe-shirt' }, ...admin(owner) });
  t.equal(reslug.body.data.product.slug, 'deluxe-shirt');
  const taken = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { slug: 'linen-shirt-2' }, ...admin(owner) });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'slug_taken');

  // Variants: update by id, add new, drop missing.
  const [small, medium] = product.variants;
  const patched = await app.request({
    method: 'PATCH',
    url: `/admin/products/${product.id}`,
    payload: {
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: [
        { id: small.id, price: 4500 },
        { sku: 'LS-L', optionValues: { Size: 'L' }, price: 6000, inventoryQuantity: 2 }
      ]
    },
    ...admin(owner)
  });
  t.equal(patched.status, 200, patched.raw);
  const variants = patched.body.data.product.variants;
  t.equal(variants.length, 2);
  t.equal(variants[0].id, small.id, 'matched by id');
  t.equal(variants[0].price, 4500);
  t.equal(variants[0].sku, 'LS-S', 'absent variant fields unchanged');
  t.equal(variants[1].sku, 'LS-L', 'new variant created');
  t.equal(patched.body.data.product.minPrice, 4500, 'price range follows the variants');
  t.equal(patched.body.data.product.maxPrice, 6000);
  t.equal(await app.ctx.db('productVariants').where({ id: medium.id }).first(), undefined, 'never-ordered removed variant deleted');

  const badOption = await app.request({
    method: 'PATCH',
    url: `/admin/products/${product.id}`,
    payload: { variants: [{ id: small.id }, { optionValues: { Size: 'XXL' }, price: 1 }] },
    ...admin(owner)
  });
  t.equal(badOption.status, 422);
  t.equal(badOption.body.error.details[0].path, 'variants.1.optionValues.Size');
  const foreignVariant = await app.request({
    method: 'PATCH',
    url: `/admin/products/${product.id}`,
    payload: { variants: [{ id: second.variants[0].id, price: 1 }] },
    ...admin(owner)
  });
  t.equal(foreignVariant.status, 422, 'a variant id of another product is refused');
  t.equal(foreignVariant.body.error.details[0].path, 'variants.0.id');

  // Stock set via PATCH lands in the ledger.
  const restock = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { variants: [{ id: small.id, inventoryQuantity: 7 }, { id: variants[1].id }] }, ...admin(owner) });
  t.equal(restock.body.data.product.variants[0].inventoryQuantity, 7);
  const ledger = await app.ctx.db('inventoryLedger').where({ variantId: small.id }).orderBy('createdAt');
  t.same(ledger.map((r) => [r.delta, r.quantityAfter, r.reason, r.reasonCode]), [[3, 3, 'new variant', 'manual'], [4, 7, 'product_update', 'manual']], 'the opening stock, then the change');

  const status = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}/status`, payload: { status: 'active' }, ...admin(owner) });
  t.equal(status.status, 200);
  t.equal(status.body.data.product.status, 'active');
  const badStatus = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}/status`, payload: { status: 'published' }, ...admin(owner) });
  t.equal(badStatus.status, 422);
  t.equal(badStatus.body.error.code, 'validation_failed');

  const list = await app.request({ url: '/admin/products?status=active', ...admin(owner) });
  t.equal(list.status, 200);
  t.same(list.body.data.products.map((p: { id: string }) => p.id), [product.id]);
  t.same(list.body.meta.pagination, { limit: 20, nextCursor: null });
  const bySku = await app.request({ url: '/admin/products?q=ls-l', ...admin(owner) });
  t.same(bySku.body.data.products.map((p: { id: string }) => p.id), [product.id], 'q matches an exact SKU');
  const byWord = await app.request({ url: '/admin/products?q=breathable', ...admin(owner) });
  t.same(byWord.body.data.products.map((p: { id: string }) => p.id), [product.id], 'q searches the description');
});

t.test('products: validation, unknown keys, not found', async (t) => {
  const owner = await signupOwner(app);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'title'],
    [{ title: 'x', isFeatured: true }, 'isFeatured'],
    [{ title: 'x', variants: [{ sku: 'a' }] }, 'variants.0.price'],
    [{ title: 'x', variants: [{ price: -1 }] }, 'variants.0.price'],
    [{ title: 'x', variants: [{ price: 10.5 }] }, 'variants.0.price'],
    [{ title: 'x', status: 'live' }, 'status'],
    [{ title: 'x', slug: 'Not a slug!' }, 'slug'],
    [{ title: 'x', variants: [{ price: 1, inventoryPolicy: 'oversell' }] }, 'variants.0.inventoryPolicy'],
    [{ title: 'x', mediaIds: ['00000000-0000-4000-8000-000000000000'] }, 'mediaIds.0']
  ];
  for (const [payload, path] of cases) {
    const response = await app.request({ method: 'POST', url: '/admin/products', payload, ...admin(owner) });
    t.equal(response.status, 422, `${JSON.stringify(payload)} → 422`);
    t.ok(response.body.error.details.some((d: { path: string }) => d.path === path), `detail names ${path}: ${response.raw}`);
  }
  const dupOptions = await app.request({
    method: 'POST',
    url: '/admin/products',
    payload: { title: 'x', options: [{ name: 'Size', values: ['S'] }], variants: [{ price: 1, optionValues: { Size: 'S' } }, { price: 2, optionValues: { Size: 'S' } }] },
    ...admin(owner)
  });
  t.equal(dupOptions.status, 422, 'two variants with the same options');
  const missing = await app.request({ url: '/admin/products/00000000-0000-4000-8000-000000000000', ...admin(owner) });
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'not_found');
  const badId = await app.request({ url: '/admin/products/nope', ...admin(owner) });
  t.equal(badId.status, 422);
  const emptyPatch = await app.request({ method: 'PATCH', url: '/admin/products/00000000-0000-4000-8000-000000000000', payload: {}, ...admin(owner) });
  t.equal(emptyPatch.status, 422);
  const noAuth = await app.request({ url: '/admin/products', storeId: owner.store.id });
  t.equal(noAuth.status, 401);
});

t.test('products: tenancy and roles', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const product = await createProduct(app, owner, { title: 'Mine', variants: [{ sku: 'MINE-1', price: 100 }] });

  for (const request of [
    { method: 'GET', url: `/admin/products/${product.id}` },
    { method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Stolen' } },
    { method: 'PATCH', url: `/admin/products/${product.id}/status`, payload: { status: 'archived' } },
    { method: 'POST', url: `/admin/products/${product.id}/variants/${product.variants[0].id}/inventory`, payload: { delta: 1 } }
  ]) {
    const response = await app.request({ ...request, ...admin(other) });
    t.equal(response.status, 404, `${request.method} ${request.url} from another store → 404`);
  }
  const theirList = await app.request({ url: '/admin/products', ...admin(other) });
  t.same(theirList.body.data.products, [], 'lists are per store');
  const sameSkuElsewhere = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Theirs', variants: [{ sku: 'MINE-1', price: 1 }] }, ...admin(other) });
  t.equal(sameSkuElsewhere.status, 201, 'SKUs are unique per store only');
  const notMember = await app.request({ url: '/admin/products', token: other.accessToken, storeId: owner.store.id });
  t.equal(notMember.status, 403);

  const staff = await addMember(app, owner.store.id, 'staff');
  const staffCreate = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'By staff' }, token: staff.accessToken, storeId: owner.store.id });
  t.equal(staffCreate.status, 201, 'staff may create products');
  const staffPatch = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Edited' }, token: staff.accessToken, storeId: owner.store.id });
  t.equal(staffPatch.status, 200, 'staff may edit products');
  const unchanged = await app.request({ url: `/admin/products/${product.id}`, ...admin(owner) });
  t.equal(unchanged.body.data.product.title, 'Edited');
});

t.test('products: removed variants that were ordered are archived, not deleted', async (t) => {
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, { title: 'Mug', variants: [{ sku: 'MUG-R', price: 100 }, { sku: 'MUG-B', price: 120 }] });
  const [red, blue] = product.variants;
  // A real order with one item of the blue variant: the orders module answers that it is in use.
  const [order] = await app.ctx.db('orders')
    .insert({ storeId: owner.store.id, number: 1001, email: 'o@example.com', paymentProvider: 'manual', currency: 'USD', subtotal: 120, total: 120, shippingAddress: '{}', trackingToken: `t-${blue.id}` })
    .returning('id');
  await app.ctx.db('orderItems').insert({ orderId: order.id, storeId: owner.store.id, productId: product.id, variantId: blue.id, title: 'Mug', quantity: 1, unitPrice: 120, lineTotal: 120 });
  const response = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { variants: [{ id: red.id }] }, ...admin(owner) });
  t.equal(response.status, 200, response.raw);
  t.same(response.body.data.product.variants.map((v: { id: string }) => v.id), [red.id], 'archived variant no longer listed');
  const archived = await app.ctx.db('productVariants').where({ id: blue.id }).first();
  t.ok(archived, 'ordered variant kept');
  t.ok(archived.archivedAt, 'and archived');
  t.equal(response.body.data.product.maxPrice, 100, 'archived variants leave the price range');
  const reuse = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'New mug', variants: [{ sku: 'MUG-B', price: 1 }] }, ...admin(owner) });
  t.equal(reuse.status, 201, 'an archived variant gives its SKU back');
});

t.test('products: admin list pages with cursors and filters by collection', async (t) => {
  const owner = await signupOwner(app);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await createProduct(app, owner, { title: `P${i}`, variants: [{ price: 100 + i }] })).id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const page = await app.request({ url: `/admin/products?limit=2${query}`, ...admin(owner) });
    t.equal(page.status, 200);
    t.ok(page.body.data.products.length <= 2);
    seen.push(...page.body.data.products.map((p: { id: string }) => p.id));
    cursor = page.body.meta.pagination.nextCursor;
  } while (cursor);
  t.same(seen, [...ids].reverse(), 'every product once, newest first');
  const bad = await app.request({ url: '/admin/products?cursor=garbage', ...admin(owner) });
  t.equal(bad.status, 422);

  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Picks', productIds: [ids[1], ids[3]] }, ...admin(owner) });
  const filtered = await app.request({ url: `/admin/products?collectionId=${collection.body.data.collection.id}`, ...admin(owner) });
  t.same(filtered.body.data.products.map((p: { id: string }) => p.id).sort(), [ids[1], ids[3]].sort());
  const got = await app.request({ url: `/admin/products/${ids[1]}`, ...admin(owner) });
  t.same(got.body.data.product.collections.map((c: { title: string }) => c.title), ['Picks']);
});
