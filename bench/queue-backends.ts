import type { Job } from 'bullmq';
import { recordGoal } from './lib/goals.js';
import { createQueueBackend, type QueueBackend } from '../src/adapters/queue/index.js';
import { DEFAULT_JOB_OPTIONS } from '../src/jobs/queues.js';
import { createFailFastRedis, waitForReady } from '../src/adapters/redis.js';
import pg from 'pg';
import { postgresCpuTotal, processCpuMs, redisServerPid } from './lib/cpu-time.js';
import { freshBenchDatabase } from './lib/database.js';
import { measure, startBenchServer } from './lib/http.js';

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 20_000);
const BULK = 500;
const CONCURRENCIES = (process.env.BENCH_QUEUE_CONCURRENCIES ?? '1,16,64').split(',').map(Number);
/** BENCH_QUEUE_POOL=n: the PostgreSQL backend's pool size (the application's default otherwise). */
const POOL = process.env.BENCH_QUEUE_POOL ? Number(process.env.BENCH_QUEUE_POOL) : undefined;

/**
 * Issue 23: no-op jobs/s enqueued and processed on BullMQ's PostgreSQL backend (the adapter used
 * when REDIS_URL is unset: one shared pool, synchronous_commit=off) next to Redis, in one run, with
 * the application's default job options (retention included). Printed, not asserted; target
 * >= 2k/s processed on PostgreSQL.
 */
export async function run(): Promise<void> {
  console.log(`\n# queues: ${JOBS} no-op jobs, enqueued (addBulk of ${BULK}, and one add at a time) and processed (worker concurrency ${CONCURRENCIES.join('/')})`);
  const databaseUrl = await freshBenchDatabase('queues');
  // BENCH_QUEUE_PROFILE=1: PostgreSQL times BullMQ's functions (self time per processed job is printed).
  if (process.env.BENCH_QUEUE_PROFILE === '1') await adminQuery(databaseUrl, `alter database "${decodeURIComponent(new URL(databaseUrl).pathname.slice(1))}" set track_functions = 'pl'`);
  // The machine is shared: the bare route of this run says how much of it the bench got.
  const server = await startBenchServer(databaseUrl);
  let bare: number | null = null;
  try {
    bare = (await measure('GET bare hapi route', server.bare, { duration: 4 })).reqPerSec;
  } finally {
    await server.stop();
  }
  const results: Record<string, Record<string, number>> = {};
  results.postgres = await measureBackend('postgres', createQueueBackend({ databaseUrl, poolMax: POOL }), databaseUrl);
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
      const share = results.postgres![metric]! / results.redis[metric]!;
      // Issue 38: processed jobs at concurrency 16 and 64 at least half of Redis's.
      const goal = metric === 'processed c=16' || metric === 'processed c=64' ? ` (target >= 0.5: ${share >= 0.5 ? 'met' : 'MISSED'})` : '';
      console.log(`${metric}: postgres ${results.postgres![metric]}/s, redis ${results.redis[metric]}/s, postgres/redis = ${share.toFixed(2)}${goal}`);
    }
    const at = (metric: string) => results.postgres![metric]! / results.redis![metric]!;
    recordGoal({
      row: 'PostgreSQL queue, processed no-op jobs',
      figure: `${at('processed c=16').toFixed(2)} of Redis at concurrency 16, ${at('processed c=64').toFixed(2)} at 64`,
      goal: '>= 0.5 of Redis at 16 and 64',
      met: at('processed c=16') >= 0.5 && at('processed c=64') >= 0.5,
      bare
    });
  }
}

/**
 * CPU per processed job of the datastore (PostgreSQL's backends of the bench database, or the
 * local redis-server, which other work on the machine may share) and of this process (BullMQ's
 * worker); and for PostgreSQL, what its queue connections were doing, sampled every 20 ms
 * (running, waiting on a lock, or idle waiting for the worker: `Client:ClientRead`).
 */
async function adminQuery<Row extends Record<string, unknown>>(databaseUrl: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

function startWatch(kind: string, databaseUrl?: string) {
  const database = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : '';
  const redisPid = kind === 'redis' ? redisServerPid() : undefined;
  const storeCpu = () => (kind === 'postgres' ? [...postgresCpuTotal(database).values()].reduce((a, b) => a + b, 0) : redisPid ? processCpuMs(redisPid) : 0);
  const ownCpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const before = { store: storeCpu(), own: ownCpu() };
  const profiling = kind === 'postgres' && databaseUrl && process.env.BENCH_QUEUE_PROFILE === '1';
  const reset = profiling ? adminQuery(databaseUrl, 'select pg_stat_reset()').catch(() => []) : Promise.resolve([]);
  const waits = new Map<string, number>();
  let samples = 0;
  let sampler: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (kind === 'postgres' && databaseUrl) {
    sampler = new pg.Client({ connectionString: databaseUrl });
    const client = sampler;
    void client.connect().then(() => {
      const tick = async () => {
        const { rows } = await client.query<{ wait: string; n: string }>(
          `select coalesce(wait_event_type || ':' || wait_event, 'running') as wait, count(*) as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and application_name like 'shopwright:queues%' group by 1`
        );
        samples += 1;
        for (const row of rows) waits.set(row.wait, (waits.get(row.wait) ?? 0) + Number(row.n));
        timer = setTimeout(() => void tick().catch(() => undefined), 20);
      };
      return tick();
    }).catch(() => undefined);
  }
  return async (jobs: number): Promise<string> => {
    if (timer) clearTimeout(timer);
    await sampler?.end().catch(() => undefined);
    const store = (storeCpu() - before.store) / jobs;
    const own = (ownCpu() - before.own) / jobs;
    let line = `CPU per job: ${kind === 'postgres' ? 'PostgreSQL' : 'redis-server'} ${store.toFixed(3)} ms, worker ${own.toFixed(3)} ms`;
    if (samples) {
      const total = [...waits.values()].reduce((a, b) => a + b, 0);
      const top = [...waits].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([wait, n]) => `${wait} ${((n / total) * 100).toFixed(0)}%`);
      line += `; queue connections (avg ${(total / samples).toFixed(1)} open): ${top.join(', ')}`;
    }
    if (profiling) {
      await reset;
      // Backends report their function counters when idle for a second.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const rows = await adminQuery<{ funcname: string; calls: string; self_time: number; total_time: number }>(databaseUrl!, `select funcname, calls, self_time, total_time from pg_stat_user_functions where schemaname = 'bullmq' order by self_time desc limit 10`);
      line += `\n  self (total) ms per job by function: ${rows.map((r) => `${r.funcname} ${(r.self_time / jobs).toFixed(3)} (${(r.total_time / jobs).toFixed(3)}) x${(Number(r.calls) / jobs).toFixed(2)}`).join(', ')}`;
    }
    return line;
  };
}

async function measureBackend(kind: string, backend: QueueBackend, databaseUrl?: string): Promise<Record<string, number>> {
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
      const watch = startWatch(kind, databaseUrl);
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
      console.log(`  ${await watch(JOBS)}`);
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
