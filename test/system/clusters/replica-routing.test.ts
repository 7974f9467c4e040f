import t from 'tap';
import { parseLsn } from '../../../src/db/read-replica.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { startReplicaCluster, until } from '../../helpers/replica-cluster.js';

/**
 * REPLICA_DATABASE_URL against a real streaming replica of our own (helpers/replica-cluster.ts).
 * The routing is seen through the data: with the replica's replay paused, a change made straight
 * on the primary (no application write, so no read-your-writes requirement) is what the primary
 * answers and the replica does not, so a storefront answer without it came from the replica.
 */
const cluster = await startReplicaCluster(t);
const MAX_LAG_MS = 3_000;
const env = {
  DATABASE_URL: cluster.primaryUrl,
  REPLICA_DATABASE_URL: cluster.replicaUrl,
  REPLICA_PROBE_MS: '100',
  REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
  // Both apps share one invalidation channel, as two web processes of one deployment do.
  REDIS_PREFIX: `swt:replica:${process.pid}`
};

t.test('storefront catalog reads on a streaming replica', async (t) => {
  const app = await buildApp(t, { env });
  const other = await buildApp(t, { env });
  const owner = await signupOwner(app);
  const sf = { storefrontToken: owner.storefrontToken };
  const product = await createProduct(app, owner, { title: 'Kettle', status: 'active', variants: [{ price: 3000, inventoryQuantity: 5 }] });
  const collection = await app.request({
    method: 'POST',
    url: '/admin/collections',
    payload: { title: 'Kitchen', isPublished: true, productIds: [product.id] },
    ...admin(owner)
  });
  t.equal(collection.status, 201);
  const { rows: reviewRows } = await cluster.primary.query<{ id: string }>(
    `insert into reviews (store_id, product_id, email, state, rating, title) values ($1, $2, 'r@example.com', 'pending', 4, 'Good') returning id`,
    [owner.store.id, product.id]
  );
  const reviewId = reviewRows[0]!.id;

  // Each list read asks for a new page size: a new storefront cache key, so a database read.
  let pageSize = 10;
  const listedTitle = async (via: TestApp = app) => {
    const response = await via.request({ url: `/storefront/products?limit=${pageSize++}`, ...sf });
    if (response.status !== 200) throw new Error(`storefront list answered ${response.status}: ${response.raw}`);
    return response.body.data.products.map((p: { title: string }) => p.title).join(',');
  };
  const health = async (via: TestApp = app) => (await via.request({ url: '/health' })).body.data;
  /** The replica has replayed all the primary wrote, and both apps' probes have seen it. */
  const settled = async () => {
    const lsn = parseLsn(await cluster.caughtUp());
    await until('probes saw the replay', async () => app.ctx.replica!.hasReplayed(lsn) && other.ctx.replica!.hasReplayed(lsn));
  };
  /** Title changed on the primary alone: no application write, so nothing requires the replica to have it. */
  const titleBehindTheAppsBack = (title: string) => cluster.primary.query('update products set title = $1 where id = $2', [title, product.id]);
  /** A failed section leaves replay running for the next one. */
  const resumeReplay = () => cluster.resumeReplay().catch(() => undefined);
  const replicaTitle = async () => (await cluster.onReplica<{ title: string }>('select title from products where id = $1', [product.id]))[0]!.title;

  await t.test('storefront reads go to the replica, admin reads to the primary', async (t) => {
    t.teardown(resumeReplay);
    await settled();
    t.match(await health(), { status: 'ok', replica: { state: 'ok', readsFrom: 'replica' } }, '/health names the replica in use');
    await cluster.pauseReplay();
    await titleBehindTheAppsBack('Kettle (primary only)');
    await cluster.primary.query(`update collections set title = 'Kitchen (primary only)' where store_id = $1`, [owner.store.id]);
    await cluster.primary.query(`update reviews set state = 'approved' where id = $1`, [reviewId]);

    t.equal(await listedTitle(), 'Kettle', 'product list: the replica answered');
    const one = await app.request({ url: `/storefront/products/${product.slug}`, ...sf });
    t.equal(one.body.data.product.title, 'Kettle', 'product: the replica answered');
    const search = await app.request({ url: '/storefront/products?q=kettle', ...sf });
    t.same(search.body.data.products.map((p: { title: string }) => p.title), ['Kettle'], 'search: the replica answered');
    const collections = await app.request({ url: '/storefront/collections', ...sf });
    t.same(collections.body.data.collections.map((c: { title: string }) => c.title), ['Kitchen'], 'collections: the replica answered');
    const kitchen = await app.request({ url: '/storefront/collections/kitchen', ...sf });
    t.equal(kitchen.body.data.collection.title, 'Kitchen', 'collection: the replica answered');
    const reviews = await app.request({ url: `/storefront/products/${product.slug}/reviews`, ...sf });
    t.equal(reviews.body.data.reviews.length, 0, 'reviews: the replica answered (the approval is on the primary only)');

    const adminView = await app.request({ url: `/admin/products/${product.id}`, ...admin(owner) });
    t.equal(adminView.body.data.product.title, 'Kettle (primary only)', 'admin reads stay on the primary');
    await cluster.resumeReplay();
    await settled();
    t.equal(await listedTitle(), 'Kettle (primary only)', 'after replay the replica has it too');
  });

  await t.test('read-your-writes: a catalog write is never followed by an older storefront read', async (t) => {
    t.teardown(resumeReplay);
    await settled();
    t.equal(await listedTitle(other), 'Kettle (primary only)', 'the other process has read this store (from the replica)');
    await cluster.pauseReplay();
    const patched = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Kettle v2' }, ...admin(owner) });
    t.equal(patched.status, 200);
    t.equal(await replicaTitle(), 'Kettle (primary only)', 'the replica has not replayed the write');
    t.equal(await listedTitle(), 'Kettle v2', 'the writing process reads its write (from the primary)');
    const one = await app.request({ url: `/storefront/products/${product.slug}`, ...sf });
    t.equal(one.body.data.product.title, 'Kettle v2', 'product page too');
    // The other process learns of the write through the invalidation channel (milliseconds).
    const seen = await until('the other process serves the write', async () => (await listedTitle(other)) === 'Kettle v2', MAX_LAG_MS / 2);
    t.ok(seen, 'another process reads the write too, while the replica still lacks it');

    const moderated = await app.request({ method: 'PATCH', url: `/admin/reviews/${reviewId}/moderation`, payload: { state: 'rejected' }, ...admin(owner) });
    t.equal(moderated.status, 200);
    const reviews = await app.request({ url: `/storefront/products/${product.slug}/reviews`, ...sf });
    t.equal(reviews.body.data.reviews.length, 0, 'a moderation is read back at once (the replica still lists the review)');
    t.equal(await replicaTitle(), 'Kettle (primary only)', 'replay was paused throughout');
    t.match(await health(), { replica: { state: 'ok' } }, 'the replica was not skipped for lag: the write position decided');

    await cluster.resumeReplay();
    await settled();
    await cluster.pauseReplay();
    await titleBehindTheAppsBack('Kettle v3 (primary only)');
    t.equal(await listedTitle(), 'Kettle v2', 'once replayed, the store reads from the replica again');
    await cluster.resumeReplay();
  });

  await t.test('a replica lagging more than REPLICA_MAX_LAG_MS is skipped until it catches up', async (t) => {
    t.teardown(resumeReplay);
    await settled();
    await cluster.pauseReplay();
    await titleBehindTheAppsBack('Kettle v4 (primary only)');
    const lagging = await until('health says lagging', async () => {
      const data = await health();
      return data.replica.state === 'lagging' && data;
    }, MAX_LAG_MS * 3);
    t.match(lagging, { status: 'ok', replica: { state: 'lagging', readsFrom: 'primary' } });
    t.ok(lagging.replica.lagMs > MAX_LAG_MS, 'the lag is reported');
    t.equal(await listedTitle(), 'Kettle v4 (primary only)', 'reads come from the primary');
    await cluster.resumeReplay();
    await until('health says ok', async () => (await health()).replica.state === 'ok');
  });

  await t.test('a stopped replica is skipped, reads still succeed, and it is used again once back', async (t) => {
    await settled();
    await cluster.stopReplica();
    // Before or after a probe notices: a failed replica read is answered from the primary.
    t.equal(await listedTitle(), 'Kettle v4 (primary only)', 'the read succeeds right after the replica stopped');
    const down = await until('health says down', async () => {
      const response = await app.request({ url: '/health' });
      return response.body.data.replica.state === 'down' && response;
    });
    t.equal(down.status, 200, 'the service stays healthy: the primary serves');
    t.match(down.body.data, { status: 'ok', database: 'connected', replica: { state: 'down', readsFrom: 'primary', lagMs: null } });
    await titleBehindTheAppsBack('Kettle v5');
    t.equal(await listedTitle(), 'Kettle v5', 'reads come from the primary');
    const reviews = await app.request({ url: `/storefront/products/${product.slug}/reviews`, ...sf });
    t.equal(reviews.status, 200, 'reviews too');

    await cluster.startReplica();
    await until('health says ok again', async () => (await health()).replica.state === 'ok', 10_000);
    await settled();
    await cluster.pauseReplay();
    await titleBehindTheAppsBack('Kettle v6 (primary only)');
    t.equal(await listedTitle(), 'Kettle v5', 'the replica serves again');
    await cluster.resumeReplay();
  });
});
