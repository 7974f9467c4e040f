import pg from 'pg';
import t from 'tap';
import { createQueueBackend, type QueueBackend } from '../../../src/adapters/queue/index.js';
import { buildApp } from '../../helpers/app.js';
import { adminQuery, createTestDatabase, dropTestDatabase, quoteIdentifier } from '../../helpers/databases.js';

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

t.test("a small addBulk on the PostgreSQL queue adds its jobs one by one (add_job), not through add_jobs_bulk's two temporary tables per call; a large one stays one set-based statement", async (t) => {
  const name = `sw_test_queue_small_bulk_${process.pid}`;
  const databaseUrl = await createTestDatabase(name);
  t.teardown(() => dropTestDatabase(name));
  // Function calls counted per database (the backend's sessions start after this).
  await adminQuery(`ALTER DATABASE ${quoteIdentifier(name)} SET track_functions TO 'pl'`);
  const backend = createQueueBackend({ databaseUrl });
  const queue = backend.queue('maintenance', { attempts: 3, removeOnComplete: { age: 60, count: 10 } });
  t.teardown(async () => {
    await queue.close();
    await backend.close();
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  t.teardown(() => client.end());
  const calls = async () => {
    const rows = (await client.query(`select funcname, calls from pg_stat_user_functions where schemaname = 'bullmq' and funcname in ('add_job', 'add_jobs_bulk')`)).rows;
    return Object.fromEntries(rows.map((row) => [row.funcname, Number(row.calls)])) as Record<string, number>;
  };
  // A backend publishes its counters once idle for a second.
  const settled = async (expect: (counts: Record<string, number>) => boolean) => {
    for (let waited = 0; waited < 10_000; waited += 250) {
      const counts = await calls();
      if (expect(counts)) return counts;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return calls();
  };

  const small = [
    { name: 'a', data: { n: 1 }, opts: { jobId: 'small-1' } },
    { name: 'b', data: { n: 2 }, opts: { jobId: 'small-2', delay: 60_000 } },
    { name: 'c', data: { n: 3 }, opts: { jobId: 'small-3', removeOnComplete: { age: 5, count: 2 } } }
  ];
  const added = await queue.addBulk(small);
  t.same(added.map((job) => job.id), ['small-1', 'small-2', 'small-3'], 'every job under its own id, in order');
  t.equal(await queue.getJobState('small-1'), 'waiting');
  t.equal(await queue.getJobState('small-2'), 'delayed', 'a delay is kept');
  const third = (await queue.getJob('small-3'))!;
  t.same(third.data, { n: 3 });
  t.same(third.opts.removeOnComplete, { age: 5 }, 'retention by age alone, as for add');
  t.equal(third.opts.attempts, 3, "the queue's default options apply");
  const again = await queue.addBulk([small[0]!]);
  t.equal(again[0]!.id, 'small-1', 'a job added again under its id stays one job');
  t.equal((await queue.getJobCounts('waiting', 'delayed')).waiting, 2);
  const afterSmall = await settled((counts) => (counts.add_job ?? 0) >= 4);
  t.equal(afterSmall.add_job, 4, 'one add_job per job');
  t.equal(afterSmall.add_jobs_bulk ?? 0, 0, 'no add_jobs_bulk for a small batch');

  const large = Array.from({ length: 20 }, (_, i) => ({ name: 'l', data: { i }, opts: { jobId: `large-${i}` } }));
  t.equal((await queue.addBulk(large)).length, 20);
  const afterLarge = await settled((counts) => (counts.add_jobs_bulk ?? 0) >= 1);
  t.equal(afterLarge.add_jobs_bulk, 1, 'a large batch is one add_jobs_bulk');
  t.equal(afterLarge.add_job, 4);
});
