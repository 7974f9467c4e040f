import { Queue, QueueEvents, Worker, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullmqConnection } from '../../redis.js';

/**
 * Producers share the process's fail-fast connection (an add while Redis is away fails at once and
 * the outbox keeps the row); workers and QueueEvents block, so each gets its own waiting one.
 */
export class RedisQueueBackend {
  readonly kind = 'redis' as const;

  constructor(
    private readonly producer: Redis,
    private readonly redisUrl: string,
    private readonly prefix: string
  ) {}

  queue(name: string, defaultJobOptions: JobsOptions): Queue {
    return new Queue(name, { connection: this.producer, prefix: this.prefix, defaultJobOptions });
  }

  worker(name: string, processor: ((job: Job) => Promise<unknown>) | null, tuning: Omit<WorkerOptions, 'connection' | 'prefix'>): Worker {
    return new Worker(name, processor, { ...tuning, connection: bullmqConnection(this.redisUrl), prefix: this.prefix });
  }

  events(name: string): QueueEvents {
    return new QueueEvents(name, { connection: bullmqConnection(this.redisUrl), prefix: this.prefix });
  }

  async ping(): Promise<void> {
    await this.producer.ping();
  }

  async close(): Promise<void> {
    // The producer connection belongs to the process's backends (src/adapters/index.ts).
  }
}
