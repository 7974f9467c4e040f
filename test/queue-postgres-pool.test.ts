import t from 'tap';
import { buildApp } from './helpers/app.js';

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
