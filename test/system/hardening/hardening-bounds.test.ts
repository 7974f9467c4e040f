import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import t from 'tap';
import { storefrontCacheUsage } from '../../../src/services/catalog/storefront-cache.js';
import { platformDefaultMailer } from '../../../src/adapters/mail/index.js';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct, multipart, TINY_PNG } from '../../helpers/catalog.js';

async function tempDir(t: { teardown(fn: () => unknown): void }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sw-uploads-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Sends the headers and the first 64 KB of a (claimed) 8 MB upload over a real socket, then waits
 * without sending more: a server that reads the body before checking the caller never answers.
 */
function answerBeforeBody(uri: string, url: string, headers: Record<string, string>, timeoutMs = 3_000): Promise<{ status: number | null; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${uri}${url}`, { method: 'POST', headers: { ...headers, 'content-length': String(8 * 1024 * 1024) } });
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: null, body: '' });
    }, timeoutMs);
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        clearTimeout(timer);
        request.destroy();
        resolve({ status: response.statusCode ?? null, body });
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.write(Buffer.concat([Buffer.from(`--b\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`), Buffer.alloc(64 * 1024, 'a')]));
  });
}

// Several apps, storms and outages in one file: more than the default 120 s on a busy machine.
t.setTimeout(300_000);

t.test('PostgreSQL session timeouts are set on every pooled connection', async (t) => {
  const app = await buildApp(t, { env: { DB_STATEMENT_TIMEOUT_MS: '300', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '2000' } });
  const shows = await Promise.all(Array.from({ length: 5 }, () => app.ctx.db.raw('show statement_timeout')));
  t.ok(shows.every((r) => r.rows[0].statementTimeout === '300ms'), 'statement_timeout on every connection');
  const idle = await app.ctx.db.raw('show idle_in_transaction_session_timeout');
  t.equal(idle.rows[0].idleInTransactionSessionTimeout, '2s');
  app.server.route({ method: 'GET', path: '/api/slow', options: { auth: false }, handler: async () => (await app.ctx.db.raw('select pg_sleep(3)')).rows });
  const started = Date.now();
  const slow = await app.request({ url: '/api/slow' });
  t.equal(slow.status, 503, slow.raw);
  t.ok(Date.now() - started < 2_000, `cancelled after ${Date.now() - started} ms`);
  const defaults = await buildApp(t);
  t.equal((await defaults.ctx.db.raw('show statement_timeout')).rows[0].statementTimeout, '15s', 'a sane default');
});

t.test('upload routes outlast their payload timeouts; the platform SMTP transport has timeouts', async (t) => {
  const app = await buildApp(t);
  const routes = app.server.table().filter((route) => ['/api/v1/admin/customers/import', '/api/v1/admin/store/media'].includes(route.path));
  t.equal(routes.length, 2);
  for (const route of routes) {
    const timeout = route.settings.timeout as { server: number; socket: number };
    const payloadTimeout = (route.settings.payload as { timeout: number }).timeout;
    t.ok(timeout.server > payloadTimeout, `${route.path}: response timeout ${timeout.server} > payload timeout ${payloadTimeout}`);
    t.ok(timeout.socket > timeout.server, `${route.path}: socket timeout outlasts it`);
  }
  const mailer = platformDefaultMailer({ ...app.ctx.config, smtpUrl: 'smtp://user:pass@127.0.0.1:2525' });
  const options = (mailer.transporter as unknown as { options: Record<string, unknown> }).options;
  t.match(options, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, host: '127.0.0.1', port: 2525 });
});

t.test('upload bodies are not read before auth, membership and role; temp files never stay behind', async (t) => {
  const uploads = await tempDir(t);
  const app = await buildApp(t, { env: { UPLOAD_TMP_DIR: uploads }, listen: true });
  const owner = await signupOwner(app);
  const stranger = await signupOwner(app);
  const staff = await addMember(app, owner.store.id, 'staff');
  const cases = [
    { label: 'not a member', url: '/api/v1/admin/store/media', token: stranger.accessToken, status: 403 },
    { label: 'staff on an admin-only import', url: '/api/v1/admin/customers/import', token: staff.accessToken, status: 403 },
    { label: 'no x-store-id', url: '/api/v1/admin/store/media', token: owner.accessToken, status: 400, noStore: true },
    { label: 'bad token', url: '/api/v1/admin/store/media', token: 'nope', status: 401 }
  ];
  for (const c of cases) {
    const response = await answerBeforeBody(app.server.info.uri, c.url, {
      authorization: `Bearer ${c.token}`,
      ...(c.noStore ? {} : { 'x-store-id': owner.store.id }),
      'content-type': 'multipart/form-data; boundary=b'
    });
    t.equal(response.status, c.status, `${c.label}: answered before the body was sent (${response.body})`);
  }
  t.same(await readdir(uploads), [], 'nothing written to the upload directory');

  // Bodies that are read, then refused or partly used: every temp file is removed.
  const twoFiles = Buffer.concat([
    multipart({ filename: 'a.png', contentType: 'image/png', data: TINY_PNG }).payload.subarray(0, 0),
    Buffer.from(`--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    TINY_PNG,
    Buffer.from(`\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\n`),
    TINY_PNG,
    Buffer.from('\r\n--b--\r\n')
  ]);
  const media = await app.request({ method: 'POST', url: '/admin/store/media', payload: twoFiles, headers: { 'content-type': 'multipart/form-data; boundary=b' }, ...admin(owner) });
  t.equal(media.status, 422, media.raw);
  const badQuery = await app.request({ method: 'POST', url: '/admin/customers/import?dryRun=perhaps', payload: 'email\na@example.com\n', headers: { 'content-type': 'text/csv' }, ...admin(owner) });
  t.equal(badQuery.status, 422, badQuery.raw);
  const extraPart = multipart({ filename: 'c.csv', contentType: 'text/csv', data: Buffer.from('email\nb@example.com\n') }, { note: 'x' });
  const withExtra = Buffer.concat([
    extraPart.payload.subarray(0, extraPart.payload.length - `--${extraPart.headers['content-type'].split('boundary=')[1]}--\r\n`.length),
    Buffer.from(`--${extraPart.headers['content-type'].split('boundary=')[1]}\r\nContent-Disposition: form-data; name="other"; filename="o.bin"\r\nContent-Type: application/octet-stream\r\n\r\nzzz\r\n`),
    Buffer.from(`--${extraPart.headers['content-type'].split('boundary=')[1]}--\r\n`)
  ]);
  const imported = await app.request({ method: 'POST', url: '/admin/customers/import', payload: withExtra, headers: extraPart.headers, ...admin(owner) });
  t.equal(imported.status, 202, imported.raw);
  const notCsv = await app.request({ method: 'POST', url: '/admin/customers/import', payload: 'not,a,customer\n1,2,3\n', headers: { 'content-type': 'text/csv' }, ...admin(owner) });
  t.equal(notCsv.status, 400, notCsv.raw);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(await readdir(uploads), [], 'every temp file and extra part removed');
});

t.test('job lists carry a summary; storefront tokens and collection products are paginated', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const jobId = randomUUID();
  const errors = Array.from({ length: 3000 }, (_, i) => ({ row: i + 2, column: 'email', message: 'email is invalid' }));
  await app.ctx.db('jobs').insert({ id: jobId, storeId: owner.store.id, type: 'customers.import', queue: 'imports', status: 'completed', result: JSON.stringify({ created: 1, errors }) });
  const list = await app.request({ url: '/admin/jobs', ...admin(owner) });
  t.equal(list.status, 200);
  t.same(list.body.data.jobs[0].result, { created: 1, errorsCount: 3000 }, 'the list has the summary');
  t.ok(list.raw.length < 5_000, `list body ${list.raw.length} bytes`);
  const one = await app.request({ url: `/admin/jobs/${jobId}`, ...admin(owner) });
  t.equal(one.body.data.job.result.errors.length, 3000, 'the job itself has the full result');

  for (let i = 0; i < 3; i++) await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: `T${i}` }, ...admin(owner) });
  const first = await app.request({ url: '/admin/store/storefront-tokens?limit=3', ...admin(owner) });
  t.equal(first.body.data.tokens.length, 3);
  t.ok(first.body.meta.pagination.nextCursor);
  const second = await app.request({ url: `/admin/store/storefront-tokens?limit=3&cursor=${first.body.meta.pagination.nextCursor}`, ...admin(owner) });
  t.equal(second.body.data.tokens.length, 1);
  t.equal(second.body.meta.pagination.nextCursor, null);

  const products = [];
  for (let i = 0; i < 5; i++) products.push(await createProduct(app, owner, { title: `P${i}`, status: 'active', variants: [{ price: 100 }] }));
  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Paged', productIds: products.map((p) => p.id), isPublished: true }, ...admin(owner) });
  const id = collection.body.data.collection.id;
  const page1 = await app.request({ url: `/admin/collections/${id}?limit=2`, ...admin(owner) });
  t.same(page1.body.data.collection.productIds, products.slice(0, 2).map((p) => p.id));
  const page2 = await app.request({ url: `/admin/collections/${id}?limit=2&cursor=${page1.body.meta.pagination.nextCursor}`, ...admin(owner) });
  t.same(page2.body.data.collection.productIds, products.slice(2, 4).map((p) => p.id));
  t.equal(page2.body.data.collection.productsCount ?? 5, 5);
});

t.test('concurrent creates without a slug never fail; the slug search is one aggregate', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Wool Sweater', variants: [{ price: 100 }] }, ...admin(owner) }))
  );
  t.same(responses.map((r) => r.status), Array(20).fill(201), 'all 20 created');
  const slugs = new Set(responses.map((r) => r.body.data.product.slug));
  t.equal(slugs.size, 20, 'distinct slugs');
  t.ok(slugs.has('wool-sweater') && slugs.has('wool-sweater-20'));
  const collections = await Promise.all(
    Array.from({ length: 10 }, () => app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Sale' }, ...admin(owner) }))
  );
  t.same(collections.map((r) => r.status), Array(10).fill(201));
  const explicit = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Hat', slug: 'hat-500', variants: [{ price: 1 }] }, ...admin(owner) });
  t.equal(explicit.status, 201);
  const hat = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Hat', variants: [{ price: 1 }] }, ...admin(owner) });
  const hat2 = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Hat', variants: [{ price: 1 }] }, ...admin(owner) });
  t.equal(hat.body.data.product.slug, 'hat');
  t.equal(hat2.body.data.product.slug, 'hat-501', 'one past the highest number in use');
});

t.test('the storefront cache is bounded in bytes: a storm of 500 distinct maxPrice values stays under the cap', async (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const capBytes = 4 * 1024 * 1024;
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_MAX_BYTES: String(capBytes), STOREFRONT_CACHE_TTL_MS: '600000' } });
  const owner = await signupOwner(app);
  const description = 'Large description. '.repeat(120);
  await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      createProduct(app, owner, { title: `Big ${i}`, description, status: 'active', tags: ['big'], variants: [{ price: 100 + i }] })
    )
  );
  const probe = await app.request({ url: '/storefront/products?limit=100&maxPrice=100000', storefrontToken: owner.storefrontToken });
  t.equal(probe.body.data.products.length, 100);
  const responseBytes = probe.raw.length;
  gc();
  const before = process.memoryUsage();
  for (let i = 0; i < 500; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => app.request({ url: `/storefront/products?limit=100&maxPrice=${100_000 + i + j}`, storefrontToken: owner.storefrontToken }))
    );
  }
  gc();
  const after = process.memoryUsage();
  const usage = storefrontCacheUsage(app.ctx);
  t.ok(usage.bytes <= capBytes, `cache holds ${usage.bytes} bytes in ${usage.entries} entries (cap ${capBytes}; one response is ${responseBytes} bytes)`);
  t.ok(usage.entries < 500, 'older entries were evicted');
  const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
  t.ok(grown < capBytes + 100 * 1024 * 1024, `heap + buffers grew ${Math.round(grown / 1024 / 1024)} MB for ${Math.round((500 * responseBytes) / 1024 / 1024)} MB of responses`);
  // Still a cache: a repeat is served from it, and a write is seen at once.
  const again = await app.request({ url: '/storefront/products?limit=100&maxPrice=100499', storefrontToken: owner.storefrontToken });
  t.equal(again.raw, (await app.request({ url: '/storefront/products?limit=100&maxPrice=100499', storefrontToken: owner.storefrontToken })).raw);
  await createProduct(app, owner, { title: 'Newest', status: 'active', variants: [{ price: 1 }] });
  const fresh = await app.request({ url: '/storefront/products?limit=100&maxPrice=100499', storefrontToken: owner.storefrontToken });
  t.equal(fresh.body.data.products[0].title, 'Newest', 'invalidated by the write');
});
