import Joi from 'joi';
import type { JobsOptions } from 'bullmq';
import type { AppContext } from '../context.js';
import { markJobActive, recordJobFailure, type TrackedJobPayload } from '../services/job-runs/job-runs.js';
import { defineJob, type JobKind } from './job-kind.js';
import type { QueueName } from './queues.js';
import { isFinalAttempt } from './final-attempt.js';

export interface TrackedJobSpec<Result> {
  name: string;
  queue: QueueName;
  options?: JobsOptions;
  concurrency?: number;
  run(ctx: AppContext, jobId: string, signal: AbortSignal): Promise<Result>;
}

/**
 * A job kind mirrored in a PostgreSQL `jobs` row (what `/admin/jobs` reads): active when a worker
 * takes it, failed with its error once no retry is left; the service marks it completed. Failures
 * BullMQ decides without running the processor (stalled too often) reach the row through the
 * worker's `failed` event (see run-workers.ts).
 */
export function trackedJob<Result>(spec: TrackedJobSpec<Result>): JobKind<TrackedJobPayload, Result> {
  return defineJob<TrackedJobPayload, Result>({
    name: spec.name,
    queue: spec.queue,
    payload: Joi.object({ jobId: Joi.string().uuid().required(), storeId: Joi.string().uuid().required() }),
    options: spec.options,
    concurrency: spec.concurrency,
    async process(ctx, job, signal) {
      const jobId = job.data.jobId;
      await markJobActive(ctx, jobId);
      try {
        return await spec.run(ctx, jobId, signal);
      } catch (error) {
        await recordJobFailure(ctx, jobId, (error as Error).message, isFinalAttempt(job, error)).catch(() => undefined);
        throw error;
      }
    }
  });
}
