import { Queue, QueueEvents, Worker, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import pg from 'pg';
import { createClosableBackend } from './postgres-factory.js';

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
 * finished-job retention by age alone (see `ageOnly`). Every object is built by
 * createClosableBackend (postgres-factory.ts): once closed, it checks no LISTEN client out of the
 * pool, so closing the pool never waits on one.
 */
/**
 * A batch this small is added job by job (`add_job`, one statement each) rather than by BullMQ's
 * set-based `add_jobs_bulk`, which creates and drops two temporary tables per call: catalog rows
 * written and deleted, and every statement of the function planned again, ~5 ms of PostgreSQL CPU
 * for one job against ~0.5 ms for `add_job` (1.1 ms for three) in our measurements on two loaded
 * cores, so job by job costs less up to some 15 jobs. The outbox relay is the caller: its batches
 * are what committed in a few milliseconds (one checkout's confirmation email is one job; with 24
 * checkouts at once, a batch of more than 8 came once per ~16 checkouts). The jobs of such a
 * batch become visible one after the other rather than together; a failure part way leaves the
 * outbox rows for the next pass, which adds them again under the same job ids (BullMQ keeps one).
 */
const ONE_BY_ONE_UP_TO = 16;

/** Listeners the pool may hold besides one per queue, worker and QueueEvents (see onPool). */
const BASE_LISTENERS = 10;

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
    this.pool.setMaxListeners(BASE_LISTENERS);
  }

  queue(name: string, defaultJobOptions: JobsOptions): Queue {
    const queue = this.onPool(() => new Queue(name, { connection: this.pool, defaultJobOptions: ageOnly(defaultJobOptions) }, createClosableBackend) as unknown as Queue);
    const add = queue.add.bind(queue);
    const addBulk = queue.addBulk.bind(queue);
    queue.add = (jobName, data, opts) => add(jobName, data, ageOnly(opts));
    queue.addBulk = async (jobs) => {
      if (jobs.length > ONE_BY_ONE_UP_TO) return addBulk(jobs.map((job) => ({ ...job, opts: ageOnly(job.opts) })));
      const added: Job[] = [];
      for (const job of jobs) added.push(await add(job.name, job.data, ageOnly(job.opts)));
      return added;
    };
    return queue;
  }

  worker(name: string, processor: ((job: Job) => Promise<unknown>) | null, tuning: Omit<WorkerOptions, 'connection' | 'prefix'>): Worker {
    return this.onPool(() => new Worker(name, processor, { ...tuning, connection: this.pool }, createClosableBackend) as unknown as Worker);
  }

  events(name: string): QueueEvents {
    return this.onPool(() => new QueueEvents(name, { connection: this.pool }, createClosableBackend) as unknown as QueueEvents);
  }

  /**
   * Makes a queue, worker or QueueEvents on the shared pool. BullMQ's PostgresConnection (one per
   * such object) adds an 'error' listener to the pool it is given, to forward idle-client errors,
   * and never removes it, not even on close. So the pool legitimately holds one listener per live
   * object (7 queues + 7 workers + QueueEvents at start: past Node's default of 10, hence the
   * MaxListenersExceededWarning), and one more for ever per object closed. The pool's listener
   * budget follows the live objects, as BullMQ does for its Redis clients: one more per object
   * made, and at its close its listener is removed and the budget given back. A warning now means
   * objects made and never closed: a real leak.
   */
  private onPool<T extends { close(...args: never[]): Promise<void> }>(make: () => T): T {
    const before = new Set(this.pool.listeners('error'));
    this.pool.setMaxListeners(this.pool.getMaxListeners() + 1);
    const made = make();
    const added = this.pool.listeners('error').filter((listener) => !before.has(listener));
    const close = made.close.bind(made) as (...args: unknown[]) => Promise<void>;
    let released = false;
    (made as unknown as { close: (...args: unknown[]) => Promise<void> }).close = async (...args: unknown[]) => {
      try {
        return await close(...args);
      } finally {
        if (!released) {
          released = true;
          for (const listener of added) this.pool.off('error', listener as (error: Error) => void);
          this.pool.setMaxListeners(Math.max(BASE_LISTENERS, this.pool.getMaxListeners() - 1));
        }
      }
    };
    return made;
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
