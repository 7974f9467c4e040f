import { Queue, QueueEvents, Worker, createPostgresBackend, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import pg from 'pg';

/**
 * BullMQ's PostgreSQL backend on one `pg.Pool` per process, shared by every queue, worker and
 * QueueEvents made here (BullMQ would otherwise build a pool for each). Each worker and QueueEvents
 * holds one pooled connection for its LISTEN; the rest serve queries, so `max` covers the seven
 * queues' listeners plus the workers' concurrent moves.
 *
 * Tuned for throughput: `synchronous_commit=off` on these connections only (a job commit does
 * not wait for its WAL flush; a PostgreSQL crash may lose the last ~600 ms of queue writes, as Redis
 * with its default persistence may; the application's own tables keep full durability), TCP
 * keepalive so a dropped LISTEN connection is noticed, idle connections released after 10 s, and
 * finished-job retention by age alone (see `ageOnly`).
 */
export class PostgresQueueBackend {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string, poolMax = 32) {
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: poolMax,
      idleTimeoutMillis: 10_000,
      keepAlive: true,
      application_name: 'shopwright:queues',
      options: '-c search_path=bullmq -c synchronous_commit=off'
    });
    this.pool.on('error', () => undefined);
  }

  queue(name: string, defaultJobOptions: JobsOptions): Queue {
    const queue = new Queue(name, { connection: this.pool, defaultJobOptions: ageOnly(defaultJobOptions) }, createPostgresBackend) as unknown as Queue;
    const add = queue.add.bind(queue);
    const addBulk = queue.addBulk.bind(queue);
    queue.add = (jobName, data, opts) => add(jobName, data, ageOnly(opts));
    queue.addBulk = (jobs) => addBulk(jobs.map((job) => ({ ...job, opts: ageOnly(job.opts) })));
    return queue;
  }

  worker(name: string, processor: ((job: Job) => Promise<unknown>) | null, tuning: Omit<WorkerOptions, 'connection' | 'prefix'>): Worker {
    return new Worker(name, processor, { ...tuning, connection: this.pool }, createPostgresBackend) as unknown as Worker;
  }

  events(name: string): QueueEvents {
    return new QueueEvents(name, { connection: this.pool }, createPostgresBackend) as unknown as QueueEvents;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A retention by age and count (`{ age, count }`) keeps the age alone here: on PostgreSQL BullMQ
 * trims by count with a `DELETE … NOT IN (… ORDER BY … LIMIT count)` over every finished job of
 * the queue at each completion, which cost 3–4× the throughput and deadlocked under concurrent
 * workers in our measurements, while the age bound is one indexed range delete. A count-only
 * retention (the low-volume housekeeping kinds) is kept as is.
 */
export function ageOnly<T extends JobsOptions | undefined>(opts: T): T {
  if (!opts) return opts;
  const out: JobsOptions = { ...opts };
  for (const key of ['removeOnComplete', 'removeOnFail'] as const) {
    const keep = out[key] as { age?: number; count?: number } | boolean | number | undefined;
    if (typeof keep === 'object' && keep.age !== undefined && keep.count !== undefined) out[key] = { age: keep.age };
  }
  return out as T;
}
