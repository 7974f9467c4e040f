import { UnrecoverableError, type Job } from 'bullmq';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { markJobActive, recordJobFailure, type TrackedJobPayload } from '../services/jobs/jobs.js';
import type { JobDefinition } from './definition.js';
import type { QueueName } from './queues.js';

/**
 * A job mirrored in the PostgreSQL `jobs` row (what `/admin/jobs` reads): active when a worker
 * takes it, failed with its error once no retry is left; the service marks it completed.
 */
export function trackedJob<Result>(
  queue: QueueName,
  name: string,
  run: (ctx: AppContext, jobId: string) => Promise<Result>
): JobDefinition<TrackedJobPayload, Result> {
  return {
    queue,
    name,
    async process(ctx: AppContext, job: Job<TrackedJobPayload>) {
      const jobId = job.data.jobId;
      await markJobActive(ctx, jobId);
      try {
        return await run(ctx, jobId);
      } catch (error) {
        const unrecoverable = error instanceof UnrecoverableError || (error instanceof AppError && error.status < 500);
        const final = unrecoverable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        await recordJobFailure(ctx, jobId, (error as Error).message, final).catch(() => undefined);
        throw error;
      }
    }
  };
}
