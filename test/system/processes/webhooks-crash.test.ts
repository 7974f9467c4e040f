import { spawn, type ChildProcess } from 'node:child_process';
import t, { type Test } from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';

/** A webhooks worker in a process of its own (test/helpers/webhook-worker-child.ts), once it runs: the one the test kills. */
async function startWorkerChild(t: Test, app: TestApp): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/test/helpers/webhook-worker-child.js'], {
    env: { ...process.env, DATABASE_URL: app.ctx.config.databaseUrl, REDIS_PREFIX: app.ctx.config.redisPrefix, LOG_LEVEL: 'silent', ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50' },
    stdio: ['ignore', 'pipe', 'inherit']
  });
  t.teardown(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return child;
}

// BullMQ notices a dead worker's job after its lock (30 s) lapses: more than the default 120 s per file on a busy machine.
t.setTimeout(300_000);

t.test('a worker killed (SIGKILL) mid-delivery loses nothing: another worker delivers the same event once', async (t) => {
  const app = await buildApp(t, { env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' } });
  const owner = await signupOwner(app);
  // The first request hangs (the child is mid-delivery when it dies); later ones succeed.
  const receiver = await startReceiver(t, (n) => (n === 0 ? 'hang' : { status: 200 }));
  const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: receiver.url, topics: ['product.created'] }, token: owner.accessToken, storeId: owner.store.id });
  const webhookId = created.body.data.webhook.id;

  const child = await startWorkerChild(t, app);

  const product = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Crash' }, token: owner.accessToken, storeId: owner.store.id });
  t.equal(product.status, 201);
  await waitFor('the child to be mid-delivery', () => receiver.received.length === 1, 30_000);
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));

  await app.startWorkers(['webhooks']);
  const delivery = await waitFor(
    'another worker to deliver it',
    async () => {
      const [row] = (await app.request({ url: `/admin/store/webhooks/${webhookId}/deliveries`, token: owner.accessToken, storeId: owner.store.id })).body.data.deliveries;
      return row?.status === 'succeeded' ? row : null;
    },
    150_000
  );
  t.equal(receiver.received.length, 2, 'the interrupted attempt, then one successful one');
  t.equal(receiver.received[0]!.headers['shopwright-event-id'], receiver.received[1]!.headers['shopwright-event-id'], 'the same event');
  t.equal(delivery.attempts, 2);
  t.equal(delivery.lastStatusCode, 200);
});

t.test('a worker killed mid-batch loses nothing: the rerun of the batch job makes only what was left, each delivery once', async (t) => {
  const app = await buildApp(t, { env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' } });
  const owner = await signupOwner(app);
  // The first request of the batch hangs (the child is mid-batch when it dies); the others succeed.
  const receiver = await startReceiver(t, (n) => (n === 0 ? 'hang' : { status: 200 }));
  const webhookIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: `${receiver.url}/${i}`, topics: ['product.created'] }, token: owner.accessToken, storeId: owner.store.id });
    webhookIds.push(created.body.data.webhook.id);
  }

  const child = await startWorkerChild(t, app);

  const product = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Crash batch' }, token: owner.accessToken, storeId: owner.store.id });
  t.equal(product.status, 201);
  const deliveries = () => app.ctx.db('webhookDeliveries').where({ storeId: owner.store.id }).select('id', 'status', 'attempts');
  // Two delivered, one hanging: the batch job is still active in the child.
  await waitFor('the child mid-batch', async () => receiver.received.length === 3 && (await deliveries()).filter((row) => row.status === 'succeeded').length === 2, 30_000);
  const [batch] = (await app.ctx.queues.get('webhooks').getJobs(['active'])).filter((job) => job?.data?.deliveries);
  t.equal(batch?.data.deliveries.length, 3, 'one batch job for the three');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));

  await app.startWorkers(['webhooks']);
  await waitFor('the left delivery made by another worker', async () => (await deliveries()).every((row) => row.status === 'succeeded'), 150_000);
  t.equal(receiver.received.length, 4, 'the interrupted attempt, then one more: the two done were not sent again');
  t.same((await deliveries()).map((row) => row.attempts).sort(), [1, 1, 2]);
  await waitFor('the batch job completed', async () => (await (await app.ctx.queues.get('webhooks').getJob(batch!.id!))?.getState()) === 'completed', 30_000);
});
