import type { Job, JobsOptions, Queue, QueueEvents, Worker, WorkerOptions } from 'bullmq';
import type { RedisClient, RedisTarget } from '../redis.js';
import { PostgresQueueBackend } from './postgres.js';
import { RedisQueueBackend } from './redis.js';

/** What a worker may tune; the connection and key prefix belong to the backend. */
export type WorkerTuning = Omit<WorkerOptions, 'connection' | 'prefix'>;

/**
 * BullMQ on one datastore: Redis (one server or a cluster), or BullMQ's PostgreSQL backend (schema
 * `bullmq`, created by the migration 20261125011000) in the application's database. The classes it
 * makes are BullMQ's own, so producers, processors, QueueEvents and the dashboard do not know which
 * one runs.
 */
export interface QueueBackend {
  readonly kind: 'redis' | 'postgres';
  queue(name: string, defaultJobOptions: JobsOptions): Queue;
  worker(name: string, processor: ((job: Job) => Promise<unknown>) | null, tuning: WorkerTuning): Worker;
  events(name: string): QueueEvents;
  /** Rejects when the datastore does not answer. */
  ping(): Promise<void>;
  /** After every queue, worker and QueueEvents made here is closed. */
  close(): Promise<void>;
}

export function createQueueBackend(store: { redis: RedisClient; target: RedisTarget; prefix: string } | { databaseUrl: string; poolMax?: number }): QueueBackend {
  return 'redis' in store ? new RedisQueueBackend(store.redis, store.target, store.prefix) : new PostgresQueueBackend(store.databaseUrl, store.poolMax);
}
