import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct, multipart, TINY_PNG } from '../../helpers/catalog.js';

t.test('collections: admin create, get, list, patch; storefront published only', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const a = await createProduct(app, owner, { title: 'Alpha', status: 'active', variants: [{ price: 100 }] });
  const b = await createProduct(app, owner, { title: 'Beta', status: 'active', variants: [{ price: 200 }] });
  const draft = await createProduct(app, owner, { title: 'Draft', variants: [{ price: 300 }] });
  const upload = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ filename: 'c.png', contentType: 'image/png', data: TINY_PNG }), ...admin(owner) });
  const mediaId = upload.body.data.media.id;

  const created = await app.request({
    method: 'POST',
    url: '/admin/collections',
    payload: { title: 'Summer Picks', description: 'Hot', productIds: [b.id, draft.id, a.id], mediaId },
    ...admin(owner)
  });
  t.equal(created.status, 201, created.raw);
  const collection = created.body.data.collection;
  t.equal(collection.slug, 'summer-picks');
  t.equal(collection.isPublished, false, 'unpublished by default');
  t.same(collection.productIds, [b.id, draft.id, a.id], 'products in the given order');
  t.equal(collection.productsCount, 3);
  t.equal(collection.image.id, mediaId);

  const again = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Summer picks' }, ...admin(owner) });
  t.equal(again.body.data.collection.slug, 'summer-picks-2');
  const taken = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'X', slug: 'summer-picks' }, ...admin(owner) });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'slug_taken');
  const badProduct = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Y', productIds: [a.id, '00000000-0000-4000-8000-000000000000'] }, ...admin(owner) });
  t.equal(badProduct.status, 422);
  t.equal(badProduct.body.error.details[0].path, 'productIds.1');
  const badMedia = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Z', mediaId: '00000000-0000-4000-8000-000000000000' }, ...admin(owner) });
  t.equal(badMedia.status, 422);
  t.equal((await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'W', featured: true }, ...admin(owner) })).status, 422, 'unknown keys refused');

  const got = await app.request({ url: `/admin/collections/${collection.id}`, ...admin(owner) });
  t.equal(got.status, 200);
  t.same(got.body.data.collection.products.map((p: { title: string }) => p.title), ['Beta', 'Draft', 'Alpha']);

  const list = await app.request({ url: '/admin/collections?limit=1', ...admin(owner) });
  t.equal(list.body.data.collections.length, 1);
  t.ok(list.body.meta.pagination.nextCursor, 'next page exists');
  const page2 = await app.request({ url: `/admin/collections?limit=1&cursor=${list.body.meta.pagination.nextCursor}`, ...admin(owner) });
  t.equal(page2.body.data.collections.length, 1);
  t.not(page2.body.data.collections[0].id, list.body.data.collections[0].id);

  // The storefront does not see it until it is published.
  const hidden = await app.request({ url: '/storefront/collections/summer-picks', storefrontToken: owner.storefrontToken });
  t.equal(hidden.status, 404, 'unpublished collection is 404');
  const emptyList = await app.request({ url: '/storefront/collections', storefrontToken: owner.storefrontToken });
  t.same(emptyList.body.data.collections, []);

  const patched = await app.request({ method: 'PATCH', url: `/admin/collections/${collection.id}`, payload: { isPublished: true, productIds: [a.id, b.id, draft.id], title: 'Summer' }, ...admin(owner) });
  t.equal(patched.status, 200);
  t.equal(patched.body.data.collection.slug, 'summer-picks', 'slug stable on rename');
  t.same(patched.body.data.collection.productIds, [a.id, b.id, draft.id], 'reordered');

  const published = await app.request({ url: '/storefront/collections', storefrontToken: owner.storefrontToken });
  t.same(published.body.data.collections.map((c: { slug: string }) => c.slug), ['summer-picks']);
  for (const [q, slugs] of [['UMM', ['summer-picks']], ['winter', []], ['100%', []]] as const) {
    const searched = await app.request({ url: `/storefront/collections?q=${encodeURIComponent(q)}`, storefrontToken: owner.storefrontToken });
    t.same(searched.body.data.collections.map((c: { slug: string }) => c.slug), slugs, `q=${q} matches titles, case-insensitively`);
  }
  const shown = await app.request({ url: '/storefront/collections/Summer-Picks', storefrontToken: owner.storefrontToken });
  t.equal(shown.status, 200);
  t.same(shown.body.data.collection.products.map((p: { title: string }) => p.title), ['Alpha', 'Beta'], 'active products only, in order');
  t.equal(shown.body.data.collection.products[0].price, 100);
  const paged = await app.request({ url: '/storefront/collections/summer-picks?limit=1', storefrontToken: owner.storefrontToken });
  t.same(paged.body.data.collection.products.map((p: { title: string }) => p.title), ['Alpha']);
  const next = await app.request({ url: `/storefront/collections/summer-picks?limit=1&cursor=${paged.body.meta.pagination.nextCursor}`, storefrontToken: owner.storefrontToken });
  t.same(next.body.data.collection.products.map((p: { title: string }) => p.title), ['Beta']);
  t.equal(next.body.meta.pagination.nextCursor, null);

  const byCollection = await app.request({ url: '/storefront/products?collection=summer-picks', storefrontToken: owner.storefrontToken });
  t.same(byCollection.body.data.products.map((p: { title: string }) => p.title).sort(), ['Alpha', 'Beta']);
  const unknownCollection = await app.request({ url: '/storefront/products?collection=nope', storefrontToken: owner.storefrontToken });
  t.same(unknownCollection.body.data.products, []);

  // Tenancy and roles.
  const other = await signupOwner(app);
  t.equal((await app.request({ url: `/admin/collections/${collection.id}`, ...admin(other) })).status, 404);
  t.equal((await app.request({ method: 'PATCH', url: `/admin/collections/${collection.id}`, payload: { title: 'Mine' }, ...admin(other) })).status, 404);
  const theirs = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Steal', productIds: [a.id] }, ...admin(other) });
  t.equal(theirs.status, 422, 'another store cannot add our products');
  t.equal((await app.request({ url: '/storefront/collections/summer-picks', storefrontToken: other.storefrontToken })).status, 404, 'storefront token selects the store');
  const staff = await addMember(app, owner.store.id, 'staff');
  const staffPatch = await app.request({ method: 'PATCH', url: `/admin/collections/${collection.id}`, payload: { description: 'by staff' }, token: staff.accessToken, storeId: owner.store.id });
  t.equal(staffPatch.status, 200, 'staff may edit collections');
  t.equal((await app.request({ url: '/storefront/collections' })).status, 401, 'storefront needs a token');
});
