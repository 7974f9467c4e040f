import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct, multipart, TINY_PNG } from '../../helpers/catalog.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('media: upload a PNG, read its size, serve it back', async (t) => {
  const owner = await signupOwner(app);
  const body = multipart({ filename: 'dot.png', contentType: 'image/png', data: TINY_PNG }, { alt: '  A dot  ' });
  const response = await app.request({ method: 'POST', url: '/admin/store/media', ...body, ...admin(owner) });
  t.equal(response.status, 201, response.raw);
  const media = response.body.data.media;
  t.match(media, { contentType: 'image/png', size: TINY_PNG.length, width: 1, height: 1, alt: 'A dot' });
  t.equal(media.url, `http://shop.test/api/v1/public/media/${media.id}`);

  const served = await app.server.inject({ url: `/api/v1/public/media/${media.id}` });
  t.equal(served.statusCode, 200);
  t.equal(served.headers['content-type'], 'image/png');
  t.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.same(served.rawPayload, TINY_PNG, 'the same bytes come back');
  const missing = await app.request({ url: '/api/v1/public/media/00000000-0000-4000-8000-000000000000' });
  t.equal(missing.status, 404);

  // Attach to a product: the admin and storefront DTOs carry the URL.
  const product = await createProduct(app, owner, { title: 'Pictured', status: 'active', mediaIds: [media.id], variants: [{ price: 100 }] });
  t.equal(product.media[0].url, media.url);
  const storefront = await app.request({ url: '/storefront/products/pictured', storefrontToken: owner.storefrontToken });
  t.equal(storefront.body.data.product.featuredImage.url, media.url);
  t.same(storefront.body.data.product.images[0], { id: media.id, url: media.url, alt: 'A dot', width: 1, height: 1 });

  const other = await signupOwner(app);
  const foreign = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Theirs', mediaIds: [media.id] }, ...admin(other) });
  t.equal(foreign.status, 422, 'another store cannot attach this media');

  const staff = await addMember(app, owner.store.id, 'staff');
  const byStaff = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ filename: 'a.png', contentType: 'image/png', data: TINY_PNG }), token: staff.accessToken, storeId: owner.store.id });
  t.equal(byStaff.status, 201, 'staff may upload media');
});

t.test('media: refuses what is not an allowed image, or too big', async (t) => {
  const owner = await signupOwner(app);
  const renamed = multipart({ filename: 'photo.png', contentType: 'image/png', data: Buffer.from('%PDF-1.4\nnot an image at all\n'.repeat(20)) });
  const fake = await app.request({ method: 'POST', url: '/admin/store/media', ...renamed, ...admin(owner) });
  t.equal(fake.status, 415, 'a renamed non-image');
  t.equal(fake.body.error.code, 'unsupported_media_type');

  const svg = multipart({ filename: 'x.svg', contentType: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>') });
  t.equal((await app.request({ method: 'POST', url: '/admin/store/media', ...svg, ...admin(owner) })).status, 415, 'SVG is not allowed');

  const big = Buffer.alloc(11 * 1024 * 1024, 0);
  TINY_PNG.copy(big);
  const tooLarge = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ filename: 'big.png', contentType: 'image/png', data: big }), ...admin(owner) });
  t.equal(tooLarge.status, 413);
  t.equal(tooLarge.body.error.code, 'payload_too_large');

  const json = await app.request({ method: 'POST', url: '/admin/store/media', payload: { file: 'x' }, ...admin(owner) });
  t.equal(json.status, 415, 'JSON is not an upload');
  t.equal(json.body.error.code, 'unsupported_media_type');

  const noFile = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart(null, { alt: 'x' }), ...admin(owner) });
  t.equal(noFile.status, 422);
  const wrongField = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ name: 'image', filename: 'a.png', contentType: 'image/png', data: TINY_PNG }), ...admin(owner) });
  t.equal(wrongField.status, 422);

  t.equal(await app.ctx.db('media').where({ storeId: owner.store.id }).count('* as n').first().then((r) => Number(r?.n)), 0, 'nothing stored for refused uploads');
  const noAuth = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ filename: 'a.png', contentType: 'image/png', data: TINY_PNG }) });
  t.equal(noAuth.status, 401);
});
