import zlib from 'node:zlib';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

t.test('responses over 1 KB are compressed with br or gzip when accepted; small ones and refusing clients get identity', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  for (let i = 0; i < 8; i++) {
    await createProduct(app, owner, { title: `Wool Scarf ${i}`, description: 'Warm and soft. '.repeat(20), status: 'active', variants: [{ price: 1000 + i }] });
  }
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.server.inject({ method: 'GET', url: `/api/v1${url}`, headers: { 'x-storefront-token': owner.storefrontToken, ...headers } });

  const plain = await get('/storefront/products');
  t.equal(plain.statusCode, 200);
  t.notOk(plain.headers['content-encoding'], 'no Accept-Encoding: identity');
  t.ok(plain.rawPayload.length > 1024, `the list is over 1 KB (${plain.rawPayload.length} bytes)`);
  t.match(plain.headers.vary, /accept-encoding/);

  for (const [header, coding, decode] of [
    ['gzip, deflate, br', 'br', zlib.brotliDecompressSync],
    ['gzip', 'gzip', zlib.gunzipSync],
    ['br;q=0.5, gzip', 'gzip', zlib.gunzipSync]
  ] as const) {
    // Twice: the first builds (and caches) the compressed body, the second serves it.
    for (const round of [1, 2]) {
      const response = await get('/storefront/products', { 'accept-encoding': header });
      t.equal(response.headers['content-encoding'], coding, `${header} -> ${coding} (round ${round})`);
      t.ok(response.rawPayload.length < plain.rawPayload.length / 3, `${coding}: ${plain.rawPayload.length} -> ${response.rawPayload.length} bytes`);
      t.equal(decode(response.rawPayload).toString(), plain.payload, `${coding}: decodes to the identity body`);
      t.equal(response.headers.etag, (plain.headers.etag as string).slice(0, -1) + `-${coding}"`, 'the tag names the coding');
      // Revalidating the compressed representation with its own tag.
      const revalidated = await get('/storefront/products', { 'accept-encoding': header, 'if-none-match': response.headers.etag as string });
      t.equal(revalidated.statusCode, 304);
    }
  }

  const small = await get('/storefront/store', { 'accept-encoding': 'gzip, br' });
  t.equal(small.statusCode, 200);
  t.ok(small.rawPayload.length < 1024);
  t.notOk(small.headers['content-encoding'], 'under 1 KB stays identity');

  // Routes outside the storefront go through hapi's streaming encoders with the same settings.
  const adminList = await app.server.inject({
    method: 'GET',
    url: '/api/v1/admin/products',
    headers: { authorization: `Bearer ${owner.accessToken}`, 'x-store-id': owner.store.id, 'accept-encoding': 'br' }
  });
  t.equal(adminList.statusCode, 200);
  t.equal(adminList.headers['content-encoding'], 'br');
  const adminPlain = await app.request({ url: '/admin/products', ...admin(owner) });
  t.same(JSON.parse(zlib.brotliDecompressSync(adminList.rawPayload).toString()).data, adminPlain.body.data);
});
