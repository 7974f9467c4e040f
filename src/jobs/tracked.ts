import Joi from 'joi';
import type { JobsOptions } from 'bullmq';
import { defineJob, type JobKind } from './job-kind.js';
import type { QueueName } from './queues.js';

/** What a tracked job carries through BullMQ: the PostgreSQL `jobs` row is the record, the payload only points at it. */
export interface TrackedJobPayload {
  jobId: string;
  storeId: string;
}

export interface TrackedJobSpec {
  name: string;
  queue: QueueName;
  options?: JobsOptions;
  concurrency?: number;
}

/**
 * A job kind mirrored in a PostgreSQL `jobs` row (what `/admin/jobs` reads, kept by
 * services/job-history). Its processor is made with `trackedProcessor` (workers/processors/tracked.ts),
 * which marks the row active and records failures.
 */
export function trackedJob(spec: TrackedJobSpec): JobKind<TrackedJobPayload> {
  return defineJob<TrackedJobPayload>({
    name: spec.name,
    queue: spec.queue,
    payload: Joi.object({ jobId: Joi.string().uuid().required(), storeId: Joi.string().uuid().required() }),
    options: spec.options,
    concurrency: spec.concurrency
  });
}
