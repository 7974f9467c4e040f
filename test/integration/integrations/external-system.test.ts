import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ExternalSystemServer, makeCustomers, makeProducts } from '../../helpers/external-system-server.js';
import { waitForJob } from '../../helpers/jobs.js';
import { signRequest } from '../../../src/platform/signed-requests.js';

const PRIVATE_OK = { ALLOW_PRIVATE_EXTERNAL_HOSTS: 'true' };

function post(app: TestApp, owner: Owner, path: string, payload?: unknown) {
  return app.request({ method: 'POST', url: `/admin/store/external-system/${path}`, payload: payload as object, ...admin(owner) });
}

function signed(app: TestApp, path: string, secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  return app.request({
    method: 'POST',
    url: path,
    payload: body,
    headers: { 'content-type': 'application/json', 'x-webhook-timestamp': String(timestamp), 'x-webhook-signature': signRequest(secret, timestamp, body) }
  });
}

t.test('preview, connect with a backfill that pages and retries a 503, repeat changes nothing, sync, disconnect', async (t) => {
  const ext = await new ExternalSystemServer().start();
  t.teardown(() => ext.stop());
  ext.products = makeProducts(120);
  ext.customers = makeCustomers(75);
  const app = await buildApp(t, { workers: ['sync'], env: PRIVATE_OK });
  const owner = await signupOwner(app);

  const badKey = await post(app, owner, 'preview', { baseUrl: ext.url, apiKey: 'wrong' });
  t.equal(badKey.status, 502);
  t.equal(badKey.body.error.code, 'upstream_failed');
  t.match(badKey.body.error.message, /refused the API key/);

  const preview = await post(app, owner, 'preview', { baseUrl: ext.url, apiKey: ext.apiKey });
  t.equal(preview.status, 200, preview.raw);
  t.same(preview.body.data, { account: { id: 'acct_123', name: 'Acme Legacy Shop' }, counts: { products: 120, customers: 75 } });
  t.equal(await app.ctx.db('externalSystemLinks').count('* as n').first().then((r: any) => Number(r.n)), 0, 'preview saves nothing');
  t.equal((await post(app, owner, 'preview', { baseUrl: ext.url })).status, 422);
  t.equal((await post(app, owner, 'preview', { baseUrl: ext.url, apiKey: 'k', extra: 1 })).status, 422);
  const headerUnsafe = await post(app, owner, 'preview', { baseUrl: ext.url, apiKey: 'key-\u{1F511}' });
  t.equal(headerUnsafe.status, 422, 'a key that cannot go into an Authorization header is refused, not a 500');

  // A customer we already have by email is linked, not duplicated; consent never goes down.
  await app.ctx.db('customers').insert({ storeId: owner.store.id, email: 'customer1@external.example', emailMarketing: 'unsubscribed' });
  ext.failures.set('/products', 1); // the first products page answers 503 once: retried

  const connected = await post(app, owner, 'connect', { baseUrl: ext.url, apiKey: ext.apiKey });
  t.equal(connected.status, 200, connected.raw);
  const { link, job } = connected.body.data;
  t.match(link, { status: 'connected', accountName: 'Acme Legacy Shop' });
  t.ok(link.connectedAt);
  t.match(link.webhookSecret, /^whsec_/);
  const row = await app.ctx.db('externalSystemLinks').where({ storeId: owner.store.id }).first();
  t.notOk(JSON.stringify(row).includes(ext.apiKey), 'the API key is encrypted at rest');
  t.notOk(JSON.stringify(row).includes(link.webhookSecret), 'so is the webhook secret');

  const done = await waitForJob(app, owner, job.id);
  t.equal(done.status, 'completed', JSON.stringify(done));
  t.match(done.result, { products: { seen: 120, changed: 120 }, customers: { seen: 75, changed: 75 } }, 'the customer linked by email is updated too');
  t.match(done.progress, { percent: 100 });
  t.ok(ext.requests.filter((r) => r.path === '/products').length >= 4, '3 pages + a retried 503');
  t.equal(await app.ctx.db('products').where({ storeId: owner.store.id }).whereNotNull('externalId').count('* as n').first().then((r: any) => Number(r.n)), 120);
  const variant = await app.ctx.db('productVariants').where({ storeId: owner.store.id, externalId: 'p_7' }).first();
  t.match(variant, { sku: 'EXT-7', price: 107, inventoryQuantity: 7 });
  const linked = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'customer1@external.example' });
  t.equal(linked.length, 1);
  t.match(linked[0], { externalId: 'c_1', emailMarketing: 'unsubscribed' });
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first().then((r: any) => Number(r.n)), 75);
  t.equal((await app.ctx.db('customers').where({ storeId: owner.store.id, externalId: 'c_3' }).first()).emailMarketing, 'subscribed');

  // A repeat changes nothing.
  const before = await app.ctx.db('products').where({ storeId: owner.store.id }).max('updatedAt as max').first();
  const sync = await post(app, owner, 'sync');
  t.equal(sync.status, 202);
  const repeat = await waitForJob(app, owner, sync.body.data.job.id);
  t.match(repeat.result, { products: { seen: 120, changed: 0 }, customers: { seen: 75, changed: 0 } });
  const after = await app.ctx.db('products').where({ storeId: owner.store.id }).max('updatedAt as max').first();
  t.same(after, before);

  // An external change comes through.
  ext.products[5] = { ...ext.products[5]!, title: 'Renamed', price: 999, updatedAt: '2026-02-01T00:00:00.000Z' };
  const changed = await waitForJob(app, owner, (await post(app, owner, 'sync')).body.data.job.id);
  t.match(changed.result, { products: { changed: 1 } });
  t.match(await app.ctx.db('products').where({ storeId: owner.store.id, externalId: 'p_5' }).first(), { title: 'Renamed', minPrice: 999 });

  // Signed internal triggers.
  const body = JSON.stringify({ accountId: 'acct_123' });
  const wrong = await signed(app, '/internal/external-system/backfill', 'whsec_wrong', body);
  t.equal(wrong.status, 400);
  const stale = await signed(app, '/internal/external-system/backfill', link.webhookSecret, body, Math.floor(Date.now() / 1000) - 600);
  t.equal(stale.status, 400);
  const unknown = await signed(app, '/internal/external-system/backfill', link.webhookSecret, JSON.stringify({ accountId: 'nope' }));
  t.equal(unknown.status, 400);
  const timestamp = Math.floor(Date.now() / 1000);
  const trigger = await signed(app, '/internal/external-system/backfill', link.webhookSecret, body, timestamp);
  t.equal(trigger.status, 202, trigger.raw);
  t.ok(trigger.body.data.job.id);
  const replay = await signed(app, '/internal/external-system/backfill', link.webhookSecret, body, timestamp);
  t.equal(replay.status, 400, 'replay refused');
  await waitForJob(app, owner, trigger.body.data.job.id);

  const disconnect = await signed(app, '/internal/external-system/disconnect', link.webhookSecret, body);
  t.equal(disconnect.status, 200, disconnect.raw);
  t.equal(disconnect.body.data.link.status, 'disconnected');
  t.equal((await post(app, owner, 'sync')).status, 409, 'no sync while disconnected');

  const reconnect = await post(app, owner, 'connect', { baseUrl: ext.url, apiKey: ext.apiKey, syncCustomers: false });
  t.equal(reconnect.status, 200);
  t.not(reconnect.body.data.link.webhookSecret, link.webhookSecret, 'a new secret on each connect');
  await waitForJob(app, owner, reconnect.body.data.job.id);
  const byAdmin = await post(app, owner, 'disconnect');
  t.equal(byAdmin.status, 200);
  t.same(byAdmin.body.data.link.status, 'disconnected');
});

t.test('a backfill whose upstream keeps failing fails and raises a sync issue; bad key at connect is a 502', async (t) => {
  const ext = await new ExternalSystemServer().start();
  t.teardown(() => ext.stop());
  ext.products = makeProducts(10);
  const app = await buildApp(t, { workers: ['sync'], env: PRIVATE_OK });
  const owner = await signupOwner(app);
  t.equal((await post(app, owner, 'connect', { baseUrl: ext.url, apiKey: 'nope' })).status, 502);
  t.equal((await post(app, owner, 'sync')).status, 404, 'not linked');
  ext.apiKey = 'first-key';
  const connected = await post(app, owner, 'connect', { baseUrl: ext.url, apiKey: 'first-key' });
  await waitForJob(app, owner, connected.body.data.job.id);
  ext.apiKey = 'rotated-upstream'; // our stored key is now refused: final, no retries
  const sync = await post(app, owner, 'sync');
  const failed = await waitForJob(app, owner, sync.body.data.job.id);
  t.equal(failed.status, 'failed');
  t.match(failed.error, /refused the API key/);
  const issues = await app.request({ url: '/admin/store/issues', ...admin(owner) });
  t.match(issues.body.data.issues, [{ kind: 'sync_failed', severity: 'critical' }]);
});

t.test('SSRF guard: https only and public addresses only, unless ALLOW_PRIVATE_EXTERNAL_HOSTS', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  for (const baseUrl of ['http://example.com', 'https://127.0.0.1:9', 'https://[::1]/', 'https://10.1.2.3', 'https://localhost:9', 'ftp://example.com']) {
    const response = await post(app, owner, 'preview', { baseUrl, apiKey: 'k' });
    t.equal(response.status, 422, `${baseUrl} refused`);
    t.equal(response.body.error.code, 'validation_failed');
  }
  const connect = await post(app, owner, 'connect', { baseUrl: 'https://localhost:9', apiKey: 'k' });
  t.equal(connect.status, 422, 'checked again at connect');
});

t.test('the nightly sync queues one backfill per connected store and never a second while one waits', async (t) => {
  const ext = await new ExternalSystemServer().start();
  t.teardown(() => ext.stop());
  const app = await buildApp(t, { workers: false, env: PRIVATE_OK });
  const linked = await signupOwner(app);
  const unlinked = await signupOwner(app);
  const gone = await signupOwner(app);
  const first = await post(app, linked, 'connect', { baseUrl: ext.url, apiKey: ext.apiKey });
  await post(app, gone, 'connect', { baseUrl: ext.url, apiKey: ext.apiKey });
  await post(app, gone, 'disconnect');
  const { queueNightlySyncs } = await import('../../../src/services/external-system/nightly.js');
  t.same(await queueNightlySyncs(app.ctx), { stores: 1, queued: 1 });
  const runs = await app.ctx.db('jobs').where({ type: 'external_system.backfill' }).select('storeId', 'id');
  t.equal(runs.filter((r: any) => r.storeId === linked.store.id).length, 1, 'the connect backfill still waits: no second one');
  t.equal(runs.find((r: any) => r.storeId === linked.store.id).id, first.body.data.job.id);
  t.notOk(runs.some((r: any) => r.storeId === unlinked.store.id));
});

t.test('a backfill stops writing once the store disconnects mid-run', async (t) => {
  const ext = await new ExternalSystemServer().start();
  t.teardown(() => ext.stop());
  ext.products = makeProducts(200);
  const app = await buildApp(t, { workers: false, env: PRIVATE_OK });
  const owner = await signupOwner(app);
  const connected = await post(app, owner, 'connect', { baseUrl: ext.url, apiKey: ext.apiKey, syncCustomers: false });
  t.equal(connected.status, 200, connected.raw);
  ext.beforePage = async (path, cursor) => {
    // The operator disconnects while the backfill waits for its second page.
    if (path === '/products' && cursor) {
      ext.beforePage = null;
      t.equal((await post(app, owner, 'disconnect')).status, 200);
    }
  };
  const { runBackfill } = await import('../../../src/services/external-system/backfill.js');
  t.same(await runBackfill(app.ctx, connected.body.data.job.id), { skipped: true });
  const imported = Number((await app.ctx.db('products').where({ storeId: owner.store.id }).count('* as c').first())!.c);
  t.ok(imported <= 50, `at most the page written before the disconnect (${imported})`);
  const link = await app.ctx.db('externalSystemLinks').where({ storeId: owner.store.id }).first();
  t.equal(link.status, 'disconnected');
  t.equal(link.lastSyncedAt, null, 'a disconnected link is not marked synced');
  const job = await app.ctx.db('jobs').where({ id: connected.body.data.job.id }).first();
  t.equal(job.status, 'completed');
  t.match(job.result, { skipped: /disconnected/ });
});

t.test('a synced title change reaches the storefront at once and moves its ETag, as an admin edit does', async (t) => {
  const ext = await new ExternalSystemServer().start();
  t.teardown(() => ext.stop());
  ext.products = makeProducts(3);
  const app = await buildApp(t, { workers: ['sync'], env: PRIVATE_OK });
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const connected = await post(app, owner, 'connect', { baseUrl: ext.url, apiKey: ext.apiKey, syncCustomers: false });
  t.equal((await waitForJob(app, owner, connected.body.data.job.id)).status, 'completed');
  const { slug } = await app.ctx.db('products').where({ storeId: owner.store.id, externalId: 'p_1' }).first('slug');

  // Both reads are now cached in this process, under the store's current catalog version.
  const product = await app.request({ url: `/storefront/products/${slug}`, ...sf });
  t.equal(product.status, 200, product.raw);
  t.equal(product.body.data.product.title, 'External product 1');
  const list = await app.request({ url: '/storefront/products', ...sf });
  t.ok(list.body.data.products.some((p: { title: string }) => p.title === 'External product 1'));

  ext.products[1] = { ...ext.products[1]!, title: 'Renamed upstream', updatedAt: '2026-03-01T00:00:00.000Z' };
  const synced = await waitForJob(app, owner, (await post(app, owner, 'sync')).body.data.job.id);
  t.match(synced.result, { products: { changed: 1 } });

  const revalidated = await app.request({ url: `/storefront/products/${slug}`, ...sf, headers: { 'if-none-match': product.headers.etag as string } });
  t.equal(revalidated.status, 200, 'the old ETag no longer matches');
  t.not(revalidated.headers.etag, product.headers.etag);
  t.equal(revalidated.body.data.product.title, 'Renamed upstream', 'not the cached copy');
  const listed = await app.request({ url: '/storefront/products', ...sf });
  t.not(listed.headers.etag, list.headers.etag);
  t.ok(listed.body.data.products.some((p: { title: string }) => p.title === 'Renamed upstream'));
});
