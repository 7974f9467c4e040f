import { UnrecoverableError, Worker } from 'bullmq';
import t from 'tap';
import { webhookSweepJob } from '../../../src/jobs/webhook-sweep.js';
import { sweepStuckDeliveries } from '../../../src/services/webhooks/sweep.js';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { settled } from '../../helpers/jobs.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';

t.setTimeout(180_000);

const ENV = { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' };
const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

/** One subscription (one per URL in a store: two in one store need two paths) and one ping to it. */
async function pingedDelivery(app: TestApp, owner: Owner, url: string) {
  const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics: ['product.created'] }, ...admin(owner) });
  const webhookId = created.body.data.webhook.id as string;
  const ping = await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhookId}/ping`, ...admin(owner) });
  t.equal(ping.status, 202);
  return { webhookId, deliveryId: ping.body.data.delivery.id as string };
}

/** The delivery's BullMQ job, once the relay moved it there. */
const bullJobOf = (app: TestApp, deliveryId: string) =>
  waitFor('the delivery job in BullMQ', async () => {
    const jobs = await app.ctx.queues.get('webhooks').getJobs(['waiting', 'delayed', 'failed', 'prioritized']);
    return jobs.find((job) => job?.data?.deliveryId === deliveryId);
  });

t.test('the sweeper re-enqueues a delivery whose job vanished, and one whose job failed for good; it is scheduled', async (t) => {
  t.ok(webhookSweepJob.schedule, 'a periodic job');
  // No webhooks worker yet: the jobs wait in BullMQ, where the test takes them away.
  const app = await buildApp(t, { workers: false, env: ENV });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  const vanished = await pingedDelivery(app, owner, `${receiver.url}/vanished`);
  const failing = await pingedDelivery(app, owner, `${receiver.url}/failing`);
  await app.ctx.outbox.kick();
  await (await bullJobOf(app, vanished.deliveryId)).remove();
  // The other fails for good: taken by a hand-driven worker and failed with no retry left.
  await bullJobOf(app, failing.deliveryId);
  const taker = app.ctx.backends.queue.worker('webhooks', null, {});
  t.teardown(() => taker.close());
  for (;;) {
    const job = await taker.getNextJob('sweep-test');
    if (!job) throw new Error('no job to fail');
    if (job.data.deliveryId !== failing.deliveryId) continue;
    await job.moveToFailed(new UnrecoverableError('given up'), 'sweep-test');
    t.equal(await job.getState(), 'failed', 'failed for good in BullMQ');
    break;
  }

  t.same(await sweepStuckDeliveries(app.ctx), { requeued: 0, failed: 0 }, 'nothing is overdue yet by the default grace');
  t.same(await sweepStuckDeliveries(app.ctx, { overdueMs: 0 }), { requeued: 2, failed: 0 });
  t.same(await sweepStuckDeliveries(app.ctx, { overdueMs: 0 }), { requeued: 0, failed: 0 }, 'a second sweep finds the jobs waiting in the outbox or BullMQ');

  await app.startWorkers(['webhooks']);
  await waitFor('both delivered', () => receiver.received.length >= 2);
  // The outcome is written after the receiver's answer: wait for the worker to record it.
  await settled(app, ['webhooks']);
  for (const { webhookId } of [vanished, failing]) {
    const [row] = (await app.request({ url: `/admin/store/webhooks/${webhookId}/deliveries`, ...admin(owner) })).body.data.deliveries;
    t.match(row, { status: 'succeeded', attempts: 1, lastStatusCode: 200 });
  }
  await settled(app, ['webhooks']);
  t.equal(receiver.received.length, 2, 'each delivered once');
});

t.test('the sweeper fails a lost delivery whose retry window is over, and leaves done ones alone', async (t) => {
  const app = await buildApp(t, { workers: false, env: ENV });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  const lost = await pingedDelivery(app, owner, receiver.url);
  await app.ctx.outbox.kick();
  await (await bullJobOf(app, lost.deliveryId)).remove();
  // First tried 25 h ago (at this test's scale the window is 50 ms × 8640 = 7.2 min), claim long lapsed.
  await app.ctx.db('webhookDeliveries').where({ id: lost.deliveryId }).update({
    status: 'delivering',
    attempts: 3,
    firstAttemptAt: new Date(Date.now() - 25 * 3600_000),
    lockedUntil: new Date(Date.now() - 3600_000),
    nextRetryAt: null
  });
  t.same(await sweepStuckDeliveries(app.ctx, { overdueMs: 0 }), { requeued: 0, failed: 1 });
  const [row] = (await app.request({ url: `/admin/store/webhooks/${lost.webhookId}/deliveries`, ...admin(owner) })).body.data.deliveries;
  t.match(row, { status: 'failed', attempts: 3, lastError: /retry window is over/ });
  t.same(await sweepStuckDeliveries(app.ctx, { overdueMs: 0 }), { requeued: 0, failed: 0 });
});

t.test("a rotated-out secret signs for its grace period only; the delivery log has every field #25 names", async (t) => {
  const app = await buildApp(t, { workers: ['webhooks'], env: ENV });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t, () => ({ status: 201, body: 'y'.repeat(3000) }));
  const { webhookId } = await pingedDelivery(app, owner, receiver.url);
  await waitFor('the first ping', () => receiver.received.length === 1);
  const rotated = await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhookId}/rotate-secret`, ...admin(owner) });
  t.equal(rotated.status, 200);
  const expires = new Date(rotated.body.data.webhook.previousSecretExpiresAt).getTime();
  t.ok(Math.abs(expires - Date.now() - 24 * 3600_000) < 60_000, 'the old secret signs for 24 h');
  // The 24 h have passed.
  await app.ctx.db('webhookSubscriptions').where({ id: webhookId }).update({ previousSecretExpiresAt: new Date(Date.now() - 1000) });
  await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhookId}/ping`, ...admin(owner) });
  await waitFor('the second ping', () => receiver.received.length === 2);
  const header = receiver.received[1]!.headers['shopwright-signature'] as string;
  t.equal(header.split(',').filter((part) => part.startsWith('v1=')).length, 1, 'only the new secret signs after the grace period');
  t.equal((await app.request({ url: `/admin/store/webhooks/${webhookId}`, ...admin(owner) })).body.data.webhook.previousSecretExpiresAt, null);

  const [delivery] = (await app.request({ url: `/admin/store/webhooks/${webhookId}/deliveries`, ...admin(owner) })).body.data.deliveries;
  t.match(delivery, { eventId: String, topic: 'ping', attempts: 1, lastStatusCode: 201, lastDurationMs: Number, nextRetryAt: null, status: 'succeeded' });
  t.equal(delivery.responseBody.length, 1024, 'the response body cut to 1 KB');
});
