import type { Job } from 'bullmq';
import t from 'tap';
import { DELIVERY_BATCH_MAX } from '../../../src/jobs/webhook-delivery.js';
import { sweepStuckDeliveries } from '../../../src/services/webhooks/sweep.js';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { settled } from '../../helpers/jobs.js';
import { startReceiver, waitFor, type Behaviour } from '../../helpers/webhook-receiver.js';

// Real receivers and BullMQ's own retry backoff (1 s, then 2 s) of a batch that did not finish.
t.setTimeout(180_000);

const ENV = { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' };
const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

/** `count` subscriptions of one store to `topics`, each at its own path of one receiver. */
async function subscribeMany(app: TestApp, owner: Owner, url: string, count: number, topics: string[]) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: `${url}/${i}`, topics }, ...admin(owner) });
    if (created.status !== 201) throw new Error(`subscribe: ${created.status} ${created.raw}`);
    ids.push(created.body.data.webhook.id);
  }
  return ids;
}

/** The webhooks queue's jobs once the relay has moved the outbox (no webhooks worker runs yet). */
async function queuedJobs(app: TestApp, count: number): Promise<Job[]> {
  await app.ctx.outbox.kick();
  return waitFor(`${count} delivery jobs in BullMQ`, async () => {
    const jobs = (await app.ctx.queues.get('webhooks').getJobs(['waiting', 'prioritized', 'delayed'])).filter(Boolean);
    return jobs.length >= count ? jobs : null;
  });
}

const deliveryRows = (app: TestApp, owner: Owner) => app.ctx.db('webhookDeliveries').where({ storeId: owner.store.id }).select('id', 'subscriptionId', 'status', 'attempts');

t.test("one event's fan-out is one job; each delivery is made once, and a failing endpoint retries alone", async (t) => {
  const app = await buildApp(t, { workers: false, env: ENV });
  const owner = await signupOwner(app);
  // The receiver's third request fails once (whichever endpoint it is for): that delivery alone retries.
  const receiver = await startReceiver(t, ((n) => (n === 2 ? { status: 500 } : { status: 200 })) as Behaviour);
  const subscriptions = await subscribeMany(app, owner, receiver.url, 5, ['product.created']);
  const product = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Fan-out', variants: [{ price: 500 }] }, ...admin(owner) });
  t.equal(product.status, 201);

  const [job, ...more] = await queuedJobs(app, 1);
  t.equal(more.length, 0, 'one job for the five deliveries');
  const rows = await deliveryRows(app, owner);
  t.equal(rows.length, 5);
  t.same(
    [...job!.data.deliveries].sort((a: { deliveryId: string }, b: { deliveryId: string }) => a.deliveryId.localeCompare(b.deliveryId)),
    rows.map((row) => ({ deliveryId: row.id, subscriptionId: row.subscriptionId })).sort((a, b) => a.deliveryId.localeCompare(b.deliveryId)),
    'the job names every delivery with its subscription'
  );
  t.same(new Set(job!.data.deliveries.map((d: { subscriptionId: string }) => d.subscriptionId)), new Set(subscriptions));

  await app.startWorkers(['webhooks']);
  await waitFor('all five succeeded', async () => (await deliveryRows(app, owner)).every((row) => row.status === 'succeeded'));
  await settled(app, ['webhooks']);
  const done = await deliveryRows(app, owner);
  t.same(done.map((row) => row.attempts).sort(), [1, 1, 1, 1, 2], 'four at the first attempt, the refused one at its retry');
  t.equal(receiver.received.length, 6, 'five deliveries and one retry: no delivery made twice');
  const eventIds = new Set(receiver.received.map((r) => r.headers['shopwright-event-id']));
  t.equal(eventIds.size, 1, 'one event');
  t.equal(new Set(receiver.received.map((r) => r.headers['shopwright-delivery-id'])).size, 5, 'five deliveries');
});

t.test('a batch whose delivery is claimed elsewhere runs again for that delivery alone', async (t) => {
  const app = await buildApp(t, { workers: false, env: ENV });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  await subscribeMany(app, owner, receiver.url, 3, ['product.created']);
  await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Claimed', variants: [{ price: 500 }] }, ...admin(owner) });
  const [job] = await queuedJobs(app, 1);
  t.equal(job!.data.deliveries.length, 3);
  // Another worker's live claim on one delivery (as if its attempt were under way there).
  const held = job!.data.deliveries[1].deliveryId as string;
  await app.ctx.db('webhookDeliveries').where({ id: held }).update({ status: 'delivering', attempts: 1, lockedUntil: new Date(Date.now() + 60_000) });

  await app.startWorkers(['webhooks']);
  await waitFor('the two others delivered', async () => receiver.received.length >= 2);
  const failedRun = await waitFor('the job failed once, keeping only the held delivery', async () => {
    const again = await app.ctx.queues.get('webhooks').getJob(job!.id!);
    return again && again.attemptsMade >= 1 ? again : null;
  });
  t.same(failedRun.data.deliveries, [job!.data.deliveries[1]], 'its data now names the unfinished delivery only');
  t.match(failedRun.failedReason, /being attempted elsewhere/);

  // The claim lapses (its worker died): BullMQ's next run of the job makes that delivery.
  await app.ctx.db('webhookDeliveries').where({ id: held }).update({ lockedUntil: new Date(Date.now() - 1_000) });
  await waitFor('the held delivery made by the rerun', async () => (await deliveryRows(app, owner)).every((row) => row.status === 'succeeded'), 30_000);
  await settled(app, ['webhooks']);
  t.equal(receiver.received.length, 3, 'each delivery made once');
  t.same(new Set(receiver.received.map((r) => r.headers['shopwright-delivery-id'])).size, 3);
  t.equal(await (await app.ctx.queues.get('webhooks').getJob(job!.id!))?.getState(), 'completed');
});

t.test('a bulk write goes up to 25 deliveries to a job; every delivery is made once', async (t) => {
  const app = await buildApp(t, { workers: false, env: { ...ENV, WEBHOOK_ENDPOINT_CONCURRENCY: '2' } });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  // Two endpoints: each statement of the import writes two deliveries per customer, more than a batch holds.
  await subscribeMany(app, owner, receiver.url, 2, ['customer.created']);
  const csv = `email\n${Array.from({ length: 30 }, (_, i) => `bulk${i}@example.com`).join('\n')}\n`;
  // The import runs on its own queue's worker; the webhooks worker starts once the jobs are counted.
  await app.startWorkers(['imports']);
  const imported = await app.request({ method: 'POST', url: '/admin/customers/import', payload: csv, headers: { 'content-type': 'text/csv' }, ...admin(owner) });
  t.ok(imported.status < 300, imported.raw);
  await waitFor('60 deliveries written', async () => (await deliveryRows(app, owner)).length === 60, 60_000);
  await app.ctx.outbox.drain();
  const jobs = await queuedJobs(app, 1);
  const sizes = jobs.map((job) => (job.data.deliveries ? job.data.deliveries.length : 1));
  t.equal(sizes.reduce((sum, n) => sum + n, 0), 60, 'every delivery in one job');
  t.ok(sizes.every((n) => n <= DELIVERY_BATCH_MAX), `none past ${DELIVERY_BATCH_MAX}: ${sizes.join(', ')}`);
  t.ok(sizes.includes(DELIVERY_BATCH_MAX), 'a statement with more deliveries fills a batch');
  t.ok(jobs.length <= 4, `${jobs.length} jobs for 60 deliveries`);

  // Two endpoints with an in-flight cap of 2: each batch takes them 2 at a time, deferring what another batch holds.
  await app.startWorkers(['webhooks']);
  await waitFor('all 60 delivered', async () => (await deliveryRows(app, owner)).every((row) => row.status === 'succeeded'), 90_000);
  await settled(app, ['webhooks']);
  t.equal(receiver.received.length, 60, 'each once');
  t.equal(new Set(receiver.received.map((r) => r.headers['shopwright-delivery-id'])).size, 60);
  t.ok((await deliveryRows(app, owner)).every((row) => row.attempts === 1), 'each at its first attempt');
});

t.test('the sweeper counts a delivery waiting in a batch in the outbox as queued', async (t) => {
  const app = await buildApp(t, { workers: false, env: ENV });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  await subscribeMany(app, owner, receiver.url, 3, ['product.created']);
  // No relay: the batch's job stays in the outbox, as when the queue backend is away.
  await app.ctx.outbox.stop();
  await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Waiting', variants: [{ price: 500 }] }, ...admin(owner) });
  const [row] = await app.ctx.db('outbox').where({ name: 'webhook-delivery' }).select('payload');
  t.equal(row.payload.deliveries.length, 3, 'one outbox row for the three');
  t.same(await sweepStuckDeliveries(app.ctx, { overdueMs: 0 }), { requeued: 0, failed: 0 }, 'none is lost: their job waits');
  t.equal(await app.ctx.db('outbox').where({ name: 'webhook-delivery' }).count('* as n').first().then((r) => Number(r!.n)), 1, 'and none got a second job');
});

t.test("a batch's attempts that meet a full in-flight cap wait their turn as one job", async (t) => {
  const app = await buildApp(t, { workers: false, env: { ...ENV, WEBHOOK_ENDPOINT_CONCURRENCY: '1' } });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  const subscriptions = await subscribeMany(app, owner, receiver.url, 3, ['product.created']);
  // Each endpoint's one slot held elsewhere (another worker's attempt in flight).
  const slots = subscriptions.map((id) => `webhook-inflight:${id}`);
  for (const slot of slots) t.equal(await app.ctx.backends.slots.take(slot, 'elsewhere', 1, 60_000), true);
  await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Busy', variants: [{ price: 500 }] }, ...admin(owner) });
  const [batch] = await queuedJobs(app, 1);
  t.equal(batch!.data.deliveries.length, 3, 'one batch of three');

  await app.startWorkers(['webhooks']);
  await waitFor('the batch job done', async () => (await (await app.ctx.queues.get('webhooks').getJob(batch!.id!))?.getState()) === 'completed');
  // The queue's scheduled jobs (the sweep, the reconcile) wait there too: only deliveries count.
  const after = (await app.ctx.queues.get('webhooks').getJobs(['delayed'])).filter((job) => job?.name === 'webhook-delivery');
  t.equal(after.length, 1, 'one delayed job for the three attempts, not one each');
  t.same(new Set(after[0]!.data.deliveries.map((d: { deliveryId: string }) => d.deliveryId)), new Set(batch!.data.deliveries.map((d: { deliveryId: string }) => d.deliveryId)));
  t.equal(after[0]!.data.deferrals, 1, 'its next wait is longer');
  t.equal(receiver.received.length, 0, 'nothing sent past the caps');

  for (const slot of slots) await app.ctx.backends.slots.release(slot, 'elsewhere');
  await waitFor('all three delivered', async () => (await deliveryRows(app, owner)).every((row) => row.status === 'succeeded'), 60_000);
  await settled(app, ['webhooks']);
  t.equal(receiver.received.length, 3, 'each once');
});
