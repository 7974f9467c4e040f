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
 * keepalive so a dropped LISTEN connection is noticed, and idle connections released after 10 s.
 */
export class PostgresQueueBackend {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string, poolMax = 24) {
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
    return new Queue(name, { connection: this.pool, defaultJobOptions }, createPostgresBackend) as unknown as Queue;
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
