import { Queue, QueueEvents, Worker, type ConnectionOptions, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import { bullmqConnection, isCluster, type RedisClient, type RedisTarget } from '../redis.js';

/**
 * Producers share the process's fail-fast connection (an add while Redis is away fails at once and
 * the outbox keeps the row); workers and QueueEvents block, so each gets its own waiting one.
 *
 * On a Redis Cluster each queue's keys carry the queue's name as hash tag (prefix
 * `<prefix>:{<queue>}`): BullMQ's scripts touch several keys of one queue at once, which a cluster
 * allows only within one slot, and the queues spread over the masters. Queue, Worker and
 * QueueEvents (and the dashboard, which reads through the Queue) all take the prefix from here.
 */
export class RedisQueueBackend {
  readonly kind = 'redis' as const;
  /** For a cluster, the lazy Cluster that blocking consumers duplicate (see bullmqConnection). */
  private readonly clusterConnection: ConnectionOptions | null;

  constructor(
    private readonly producer: RedisClient,
    private readonly target: RedisTarget,
    private readonly prefix: string
  ) {
    this.clusterConnection = isCluster(target) ? bullmqConnection(target) : null;
  }

  /** The key prefix of one queue's keys. */
  prefixOf(name: string): string {
    return this.clusterConnection ? `${this.prefix}:{${name}}` : this.prefix;
  }

  private connection(): ConnectionOptions {
    return this.clusterConnection ?? bullmqConnection(this.target);
  }

  queue(name: string, defaultJobOptions: JobsOptions): Queue {
    return new Queue(name, { connection: this.producer as unknown as ConnectionOptions, prefix: this.prefixOf(name), defaultJobOptions });
  }

  worker(name: string, processor: ((job: Job) => Promise<unknown>) | null, tuning: Omit<WorkerOptions, 'connection' | 'prefix'>): Worker {
    return new Worker(name, processor, { ...tuning, connection: this.connection(), prefix: this.prefixOf(name) });
  }

  events(name: string): QueueEvents {
    return new QueueEvents(name, { connection: this.connection(), prefix: this.prefixOf(name) });
  }

  async ping(): Promise<void> {
    await this.producer.ping();
  }

  async close(): Promise<void> {
    // The producer connection belongs to the process's backends (src/adapters/index.ts).
    (this.clusterConnection as unknown as RedisClient | null)?.disconnect();
  }
}
