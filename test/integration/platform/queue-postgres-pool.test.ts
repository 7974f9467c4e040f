import t from 'tap';
import { createQueueBackend, type QueueBackend } from '../../../src/adapters/queue/index.js';
import { buildApp } from '../../helpers/app.js';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';

t.test("the PostgreSQL queue backend's shared pool: no MaxListenersExceededWarning with every worker running, nor after many queues, workers and QueueEvents come and go", async (t) => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));

  // Every queue's worker, the schedules, and the queues the app uses: what `npm start` makes.
  const app = await buildApp(t, { workers: true, env: { REDIS_URL: '' } });
  t.equal(app.ctx.backends.queue.kind, 'postgres');
  await app.ctx.queues.get('campaigns').getJobCounts();

  // Objects closed give their share back: 40 rounds would leave 120 listeners behind otherwise.
  const backend = app.ctx.backends.queue;
  for (let round = 0; round < 40; round++) {
    const queue = backend.queue('maintenance', {});
    const worker = backend.worker('maintenance', null, { autorun: false });
    const events = backend.events('maintenance');
    await Promise.all([queue.waitUntilReady(), worker.waitUntilReady(), events.waitUntilReady()]);
    await Promise.all([queue.close(), worker.close(), events.close()]);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.same(warnings.filter((w) => w.includes('MaxListenersExceeded')), [], 'no listener warning');
});

t.test('a worker or QueueEvents closed while it is still getting ready leaves no connection checked out: the shared pool ends (it waited for ever, and `npm start` never exited)', async (t) => {
  const name = `sw_test_queue_early_close_${process.pid}`;
  const databaseUrl = await createTestDatabase(name);
  t.teardown(() => dropTestDatabase(name));
  // Each is closed at once, as a SIGTERM right after the API came up closes the workers that still
  // start (forced: no job can be running yet): its readiness, whose last step names its LISTEN
  // connection, completes after the close.
  const makers = {
    worker: (backend: QueueBackend) => {
      const worker = backend.worker('maintenance', async () => undefined, {}).on('error', () => undefined);
      return { ready: worker.waitUntilReady(), close: () => worker.close(true) };
    },
    QueueEvents: (backend: QueueBackend) => {
      const events = backend.events('maintenance').on('error', () => undefined);
      return { ready: events.waitUntilReady(), close: () => events.close() };
    }
  };
  for (const [kind, make] of Object.entries(makers)) {
    const backend = createQueueBackend({ databaseUrl });
    const made = make(backend);
    await made.close();
    await made.ready;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      backend.close().then(() => 'ended'),
      new Promise((resolve) => (timer = setTimeout(resolve, 10_000, 'still waiting for a checked-out connection after 10 s')))
    ]);
    clearTimeout(timer);
    t.equal(outcome, 'ended', `${kind}: the pool ends`);
  }
});
