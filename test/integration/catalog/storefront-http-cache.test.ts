import { createHash } from 'node:crypto';
import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { openSession, setupShop } from '../../helpers/checkout.js';

// One app for the file (issue #32); each test signs up its own store. The rate-limit test changes
// the settings and builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('storefront GETs: strong ETag, Cache-Control from the store setting, 304 without the database', async (t) => {
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const product = await createProduct(app, owner, { title: 'Linen Shirt', status: 'active', variants: [{ price: 4200, inventoryQuantity: 3 }] });
  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Summer', isPublished: true }, ...admin(owner) });
  t.equal(collection.status, 201);

  const urls = ['/storefront/products', '/storefront/products?sort=title', '/storefront/products/linen-shirt', '/storefront/collections', '/storefront/collections/summer', '/storefront/store'];
  const tags = new Map<string, string>();
  for (const url of urls) {
    const first = await app.request({ url, ...sf });
    t.equal(first.status, 200, url);
    const etag = first.headers.etag as string;
    t.match(etag, /^"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}"$/, `${url}: a strong ETag`);
    t.equal(first.headers['cache-control'], 'public, max-age=60, stale-while-revalidate=300', `${url}: the default Cache-Control`);
    t.match(first.headers.vary, /x-storefront-token/);
    tags.set(url, etag);
  }
  t.equal(new Set(tags.values()).size, urls.length, 'every request has its own tag');

  // A revalidation with the current tag: 304, and not a single query reaches PostgreSQL.
  const queries: string[] = [];
  const onQuery = (query: { sql: string }) => queries.push(query.sql);
  app.ctx.db.on('query', onQuery);
  for (const url of urls) {
    const revalidated = await app.request({ url, ...sf, headers: { 'if-none-match': tags.get(url)! } });
    t.equal(revalidated.status, 304, `${url}: 304`);
    t.equal(revalidated.raw, '');
    t.equal(revalidated.headers.etag, tags.get(url));
    t.equal(revalidated.headers['cache-control'], 'public, max-age=60, stale-while-revalidate=300');
  }
  const several = await app.request({ url: '/storefront/products', ...sf, headers: { 'if-none-match': `"nope", ${tags.get('/storefront/products')}` } });
  t.equal(several.status, 304, 'one of several tags matching is enough');
  app.ctx.db.off('query', onQuery);
  t.same(queries, [], 'revalidations never touch the database');

  const wrong = await app.request({ url: '/storefront/products', ...sf, headers: { 'if-none-match': tags.get('/storefront/products?sort=title')! } });
  t.equal(wrong.status, 200, "another request's tag does not match");

  // A catalog write moves the version: every old tag now gets the full, fresh response.
  const updated = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Linen Shirt II' }, ...admin(owner) });
  t.equal(updated.status, 200);
  const after = await app.request({ url: '/storefront/products/linen-shirt', ...sf, headers: { 'if-none-match': tags.get('/storefront/products/linen-shirt')! } });
  t.equal(after.status, 200, 'a write invalidates the old tag');
  t.equal(after.body.data.product.title, 'Linen Shirt II');
  t.not(after.headers.etag, tags.get('/storefront/products/linen-shirt'));
  const again = await app.request({ url: '/storefront/products/linen-shirt', ...sf, headers: { 'if-none-match': after.headers.etag as string } });
  t.equal(again.status, 304, 'the new tag revalidates');

  // Stock changes and collection changes move it too.
  const variantId = after.body.data.product.variants[0].id;
  const etagBeforeStock = again.headers.etag as string;
  const adjusted = await app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${variantId}/inventory`, payload: { delta: -1 }, ...admin(owner) });
  t.equal(adjusted.status, 200);
  const stocked = await app.request({ url: '/storefront/products/linen-shirt', ...sf, headers: { 'if-none-match': etagBeforeStock } });
  t.equal(stocked.status, 200, 'an inventory change invalidates the tag');
  const collectionTag = (await app.request({ url: '/storefront/collections/summer', ...sf })).headers.etag as string;
  const renamed = await app.request({ method: 'PATCH', url: `/admin/collections/${collection.body.data.collection.id}`, payload: { description: 'Hot' }, ...admin(owner) });
  t.equal(renamed.status, 200);
  t.equal((await app.request({ url: '/storefront/collections/summer', ...sf, headers: { 'if-none-match': collectionTag } })).status, 200, 'a collection change invalidates');

  // The store setting drives Cache-Control, and changing it moves the version.
  const settings = await app.request({ method: 'PATCH', url: '/admin/store', payload: { storefrontCacheMaxAge: 5, storefrontCacheStaleWhileRevalidate: 30 }, ...admin(owner) });
  t.equal(settings.status, 200);
  t.equal(settings.body.data.store.storefrontCacheMaxAge, 5);
  const reconfigured = await app.request({ url: '/storefront/store', ...sf, headers: { 'if-none-match': tags.get('/storefront/store')! } });
  t.equal(reconfigured.status, 200);
  t.equal(reconfigured.headers['cache-control'], 'public, max-age=5, stale-while-revalidate=30');
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { storefrontCacheMaxAge: -1 }, ...admin(owner) })).status, 422);

  // Another store's tags are its own: the same URL with another token never matches.
  const other = await signupOwner(app);
  const foreign = await app.request({ url: '/storefront/products', storefrontToken: other.storefrontToken, headers: { 'if-none-match': tags.get('/storefront/products')! } });
  t.equal(foreign.status, 200);
  t.same(foreign.body.data.products, []);
});

t.test('stock taken by a checkout moves the ETag too', async (t) => {
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const product = await createProduct(app, owner, { title: 'Last Mug', status: 'active', variants: [{ price: 1500, inventoryQuantity: 1 }] });
  await setupShop(app, owner);
  const before = await app.request({ url: '/storefront/products/last-mug', ...sf });
  t.equal(before.body.data.product.available, true);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0].id, quantity: 1 }]);
  t.equal(session.status, 201, session.raw);
  const after = await app.request({ url: '/storefront/products/last-mug', ...sf, headers: { 'if-none-match': before.headers.etag as string } });
  t.equal(after.status, 200, 'the old tag no longer matches once checkout reserved the last unit');
  t.equal(after.body.data.product.available, false);
});

t.test('a checkout moves the ETag only when availability changes: sold out, back in stock, not a count', async (t) => {
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const last = await createProduct(app, owner, { title: 'Last Bowl', status: 'active', variants: [{ price: 1500, inventoryQuantity: 1 }] });
  await createProduct(app, owner, { title: 'Plenty Bowl', status: 'active', variants: [{ price: 1500, inventoryQuantity: 100 }] });
  const plenty = await app.ctx.db('productVariants').where({ storeId: owner.store.id, inventoryQuantity: 100 }).first('id');
  await setupShop(app, owner);
  const tagOf = async (slug: string) => (await app.request({ url: `/storefront/products/${slug}`, ...sf })).headers.etag as string;
  const revalidate = (slug: string, tag: string) => app.request({ url: `/storefront/products/${slug}`, ...sf, headers: { 'if-none-match': tag } });

  // 100 -> 99 changes no storefront field: the cached catalog and its tags stay.
  const plentyTag = await tagOf('plenty-bowl');
  const lastTag = await tagOf('last-bowl');
  const { session: plentySession } = await openSession(app, owner, [{ variantId: plenty.id, quantity: 1 }]);
  t.equal(plentySession.status, 201);
  t.equal((await revalidate('plenty-bowl', plentyTag)).status, 304, 'a stock count change no storefront shows keeps the tag');
  t.equal((await revalidate('last-bowl', lastTag)).status, 304, 'and every other tag of the store');

  // The last unit held: sold out, at once.
  const { cartId, session } = await openSession(app, owner, [{ variantId: last.variants[0].id, quantity: 1 }]);
  t.equal(session.status, 201);
  const soldOut = await revalidate('last-bowl', lastTag);
  t.equal(soldOut.status, 200, 'selling out moves the tag');
  t.equal(soldOut.body.data.product.available, false);

  // The shopper changes the cart: the session is cancelled and its unit goes back on sale, at once.
  const emptied = await app.request({ method: 'DELETE', url: `/storefront/carts/${cartId}/items/${(await app.ctx.db('cartItems').where({ cartId }).first('id')).id}`, ...sf });
  t.equal(emptied.status, 200, emptied.raw);
  const back = await revalidate('last-bowl', soldOut.headers.etag as string);
  t.equal(back.status, 200, 'coming back in stock moves the tag');
  t.equal(back.body.data.product.available, true);
});

t.test('a revalidation is answered after authentication: revoked tokens and rate limits still apply', async (t) => {
  const app = await buildApp(t, { env: { RATE_LIMIT_STOREFRONT_PER_CLIENT: '4' } });
  const owner = await signupOwner(app);
  const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'Kiosk' }, ...admin(owner) });
  t.equal(created.status, 201);
  const secret = created.body.data.secret as string;
  const first = await app.request({ url: '/storefront/products', storefrontToken: secret });
  t.equal(first.status, 200);
  const etag = first.headers.etag as string;
  const revalidate = () => app.request({ url: '/storefront/products', storefrontToken: secret, headers: { 'if-none-match': etag } });
  t.equal((await revalidate()).status, 304, 'the current tag revalidates');

  t.equal((await revalidate()).status, 304);
  t.equal((await revalidate()).status, 304, 'four requests from this address so far');
  const limited = await revalidate();
  t.equal(limited.status, 429, 'revalidations count against the per-client limit');
  t.ok(limited.headers['retry-after']);

  const revoked = await app.request({ method: 'POST', url: `/admin/store/storefront-tokens/${created.body.data.token.id}/revoke`, ...admin(owner) });
  t.equal(revoked.status, 200);
  const refused = await app.request({ url: '/storefront/products', storefrontToken: secret, headers: { 'if-none-match': etag } });
  t.equal(refused.status, 401, 'a revoked token gets 401 even with the current tag');
});

t.test('a tag made by hand cannot turn a request that fails validation into a 304', async (t) => {
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const valid = await app.request({ url: '/storefront/products', ...sf });
  const etag = valid.headers.etag as string;
  const version = etag.replace(/^"/, '').split('.')[0]!;
  // The tag's shape is public (catalog version, then a digest of the request): try the digests a
  // client could compute for the invalid request.
  const url = '/api/v1/storefront/products?limit=0';
  const forged = ['sha1', 'sha256'].flatMap((algorithm) =>
    [url, `/api/v1/storefront/products??limit=0`].map((text) => `"${version}.${createHash(algorithm).update(text).digest('base64url').slice(0, 16)}"`)
  );
  const answer = await app.request({ url: '/storefront/products?limit=0', ...sf, headers: { 'if-none-match': forged.join(', ') } });
  t.equal(answer.status, 422, `${url} with a computed tag is validated, not answered 304`);
  t.equal(answer.body.error.code, 'validation_failed');
});
