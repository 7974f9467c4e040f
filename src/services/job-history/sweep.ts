import type { AppContext } from '../../context.js';
import type { QueueName } from '../../jobs/queues.js';
import { recordJobFailure } from './job-runs.js';

/** A run unchanged this long while queued or active is checked against BullMQ. */
const QUIET_FOR_MS = 10 * 60_000;

/**
 * Fails job runs that can no longer finish: still `queued`/`active` in PostgreSQL, no outbox row
 * waiting to be relayed, and no BullMQ job (or one BullMQ has failed for good).
 */
export async function sweepLostJobRuns(ctx: AppContext, options: { quietForMs?: number } = {}): Promise<{ failed: number }> {
  const quietSince = new Date(Date.now() - (options.quietForMs ?? QUIET_FOR_MS));
  const candidates: Array<{ id: string; queue: QueueName }> = await ctx
    .db('jobs')
    .whereIn('status', ['queued', 'active'])
    .where('updatedAt', '<', quietSince)
    .whereNotExists(ctx.db('outbox').whereRaw('outbox.job_id = jobs.id::text'))
    .limit(500)
    .select('id', 'queue');
  let failed = 0;
  for (const run of candidates) {
    const job = await ctx.queues.get(run.queue).getJob(run.id);
    const state = job ? await job.getState() : 'missing';
    if (state === 'missing' || state === 'unknown') {
      await recordJobFailure(ctx, run.id, 'The job was lost by the queue (no longer in Redis)', true);
      failed += 1;
    } else if (state === 'failed') {
      await recordJobFailure(ctx, run.id, job?.failedReason || 'The job failed', true);
      failed += 1;
    }
  }
  return { failed };
}
