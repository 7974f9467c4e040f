import type { AppContext } from '../../context.js';
import type { JobKind } from '../../jobs/job-kind.js';
import type { TrackedJobPayload } from '../../jobs/tracked.js';
import { markJobActive, recordJobFailure } from '../../services/job-history/index.js';
import { isFinalAttempt } from '../final-attempt.js';
import { processorOf, type JobProcessor } from '../processor.js';

/**
 * The processor of a tracked job kind: its `jobs` row is active when a worker takes it, failed
 * with its error once no retry is left; the service marks it completed. Failures BullMQ decides
 * without running the processor (stalled too often) reach the row through the worker's `failed`
 * event (see run-workers.ts).
 */
export function trackedProcessor(
  kind: JobKind<TrackedJobPayload>,
  run: (ctx: AppContext, jobId: string, signal: AbortSignal) => Promise<unknown>
): JobProcessor<TrackedJobPayload> {
  return processorOf(kind, async (ctx, job, signal) => {
    const jobId = job.data.jobId;
    await markJobActive(ctx, jobId);
    try {
      return await run(ctx, jobId, signal);
    } catch (error) {
      await recordJobFailure(ctx, jobId, (error as Error).message, isFinalAttempt(job, error)).catch(() => undefined);
      throw error;
    }
  });
}
