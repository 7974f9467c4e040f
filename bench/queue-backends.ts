import type { Job } from 'bullmq';
import { createQueueBackend, type QueueBackend } from '../src/adapters/queue/index.js';
import { DEFAULT_JOB_OPTIONS } from '../src/jobs/queues.js';
import { createFailFastRedis, waitForReady } from '../src/adapters/redis.js';
import { freshBenchDatabase } from './lib/database.js';

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 20_000);
const BULK = 500;
const CONCURRENCIES = [1, 16, 64];

/**
 * Issue 23: no-op jobs/s enqueued and processed on BullMQ's PostgreSQL backend (the adapter used
 * when REDIS_URL is unset: one shared pool, synchronous_commit=off) next to Redis, in one run, with
 * the application's default job options (retention included). Printed, not asserted; target
 * >= 2k/s processed on PostgreSQL.
 */
export async function run(): Promise<void> {
  console.log(`\n# queues: ${JOBS} no-op jobs, enqueued (addBulk of ${BULK}, and one add at a time) and processed (worker concurrency ${CONCURRENCIES.join('/')})`);
  const databaseUrl = await freshBenchDatabase('queues');
  const results: Record<string, Record<string, number>> = {};
  results.postgres = await measureBackend('postgres', createQueueBackend({ databaseUrl }));
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const target = { url: redisUrl, clusterNodes: [] };
  const redis = createFailFastRedis(target);
  redis.on('error', () => undefined);
  try {
    await waitForReady(redis, 3_000);
    results.redis = await measureBackend('redis', createQueueBackend({ redis, target, prefix: `swbench-queues-${process.pid}` }));
  } catch (error) {
    console.log(`redis: not measured (${(error as Error).message}; set REDIS_URL)`);
  } finally {
    redis.disconnect();
  }
  if (results.redis) {
    for (const metric of Object.keys(results.postgres!)) {
      console.log(`${metric}: postgres ${results.postgres![metric]}/s, redis ${results.redis[metric]}/s, postgres/redis = ${(results.postgres![metric]! / results.redis[metric]!).toFixed(2)}`);
    }
  }
}

async function measureBackend(kind: string, backend: QueueBackend): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  try {
    for (const concurrency of CONCURRENCIES) {
      const name = `bench-noop-${concurrency}`;
      const queue = backend.queue(name, DEFAULT_JOB_OPTIONS);
      await queue.obliterate({ force: true }).catch(() => undefined);
      const bulkStarted = performance.now();
      for (let i = 0; i < JOBS; i += BULK) {
        await queue.addBulk(Array.from({ length: Math.min(BULK, JOBS - i) }, (_v, j) => ({ name: 'noop', data: { n: i + j } })));
      }
      const enqueued = Math.round(JOBS / ((performance.now() - bulkStarted) / 1000));
      let done = 0;
      let finish: () => void = () => undefined;
      const allDone = new Promise<void>((resolve) => (finish = resolve));
      const started = performance.now();
      const worker = backend.worker(name, async (_job: Job) => undefined, { concurrency, autorun: true });
      worker.on('completed', () => {
        done += 1;
        if (done === JOBS) finish();
      });
      await allDone;
      const processed = Math.round(JOBS / ((performance.now() - started) / 1000));
      await worker.close();
      out[`enqueue addBulk`] ??= enqueued;
      out[`processed c=${concurrency}`] = processed;
      console.log(`${kind}: enqueued ${enqueued} jobs/s (addBulk), processed ${processed} jobs/s at concurrency ${concurrency}`);
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    const queue = backend.queue('bench-single', DEFAULT_JOB_OPTIONS);
    const n = Math.min(JOBS, 5_000);
    const started = performance.now();
    await Promise.all(Array.from({ length: 20 }, async (_v, lane) => {
      for (let i = lane; i < n; i += 20) await queue.add('noop', { i });
    }));
    out['enqueue add x20'] = Math.round(n / ((performance.now() - started) / 1000));
    console.log(`${kind}: enqueued ${out['enqueue add x20']} jobs/s (add, 20 at a time)`);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  } finally {
    await backend.close();
  }
  return out;
}
