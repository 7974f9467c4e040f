import Joi from 'joi';
import type { JobsOptions } from 'bullmq';
import { defineJob, type JobKind } from './job-kind.js';
import type { QueueName } from './queues.js';

/** What a tracked job carries through BullMQ: the PostgreSQL `jobs` row is the record, the payload only points at it. */
export interface TrackedJobPayload {
  jobId: string;
  storeId: string;
}

/**
 * The API key scope a tracked job's result needs (its `result`, its file, its event stream), on top
 * of `read_jobs`: the scope of the data in it, so `read_jobs` alone never reads customers through a
 * job. Spelled as in services/api-keys/scopes.ts (a declaration imports no service);
 * src/api/admin-jobs/result-access.ts hands it on as an `ApiKeyScope`, so one that is not a scope
 * does not compile.
 */
export type JobResultScope = 'read_products' | 'read_orders' | 'read_customers' | 'read_audit' | 'read_jobs';

export interface TrackedJobSpec {
  name: string;
  /** The `jobs` row type operators see and filter `/admin/jobs` by, e.g. `customers.import`. */
  type: string;
  /** The scope an API key needs to read the result: the scope of the data in it. */
  resultScope: JobResultScope;
  queue: QueueName;
  options?: JobsOptions;
  concurrency?: number;
}

/** A tracked job's declaration: a job kind plus its row type and the scope its result needs. */
export type TrackedJobKind = JobKind<TrackedJobPayload> & Pick<TrackedJobSpec, 'type' | 'resultScope'>;

export const isTrackedJob = (kind: JobKind): kind is TrackedJobKind => typeof (kind as Partial<TrackedJobKind>).type === 'string';

/**
 * A job kind mirrored in a PostgreSQL `jobs` row (what `/admin/jobs` reads, kept by
 * services/job-history). Its processor is made with `trackedProcessor` (workers/processors/tracked.ts),
 * which marks the row active and records failures.
 */
export function trackedJob(spec: TrackedJobSpec): TrackedJobKind {
  const kind = defineJob<TrackedJobPayload>({
    name: spec.name,
    queue: spec.queue,
    payload: Joi.object({ jobId: Joi.string().uuid().required(), storeId: Joi.string().uuid().required() }),
    options: spec.options,
    concurrency: spec.concurrency
  });
  return { ...kind, type: spec.type, resultScope: spec.resultScope };
}
