import type { AppContext } from '../../context.js';
import { AppError, conflict, notFound } from '../../errors.js';
import { TRACKED_JOB_KINDS } from '../../jobs/registry.js';
import type { QueueName } from '../../jobs/queues.js';
import { reactInTransaction } from '../../platform/events/domain-events.js';
import { enqueueJob, withdrawJob } from '../../platform/outbox/enqueue.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { recordAudit } from '../audit/index.js';
import { toJobDto, type JobDto, type JobRow } from './job-runs.js';

/** What a cancelled run says in `error`: a cancel is a run that ends without its result, like a failure. */
export const CANCELLED_MESSAGE = 'Cancelled by a member of the store';

async function lockedRun(trx: Parameters<Parameters<typeof withTransaction>[1]>[0], storeId: string, jobId: string): Promise<JobRow> {
  const row: JobRow | undefined = await trx('jobs').where({ storeId, id: jobId }).forUpdate().first();
  if (!row) throw notFound('Job');
  return row;
}

/** The BullMQ job of a run (the run's id is its BullMQ id: createJob enqueues it so) and its state. */
async function queuedJobOf(ctx: AppContext, queue: string, jobId: string) {
  const job = await ctx.queues.get(queue as QueueName).getJob(jobId);
  return { job, state: job ? await job.getState() : 'missing' };
}

/**
 * Runs a failed job again from where it stopped (its checkpoint is kept, so an import resumes at
 * its last committed batch): the run goes back to `queued` and a fresh queue job is asked for
 * through the outbox, after the old BullMQ job (kept 7 days after failing) is removed, since
 * BullMQ would ignore a new job under an id it still holds. 409 unless the run is failed, or
 * when the input file it needs was given up when it failed.
 */
export async function retryJob(ctx: AppContext, storeId: string, jobId: string): Promise<JobDto> {
  const current: JobRow | undefined = await ctx.db('jobs').where({ storeId, id: jobId }).first();
  if (!current) throw notFound('Job');
  if (current.status !== 'failed') throw conflict('job_not_retryable', `Only a failed job can be retried; this one is ${current.status}`, [{ path: 'status', message: `is ${current.status}` }]);
  const kind = TRACKED_JOB_KINDS.find((candidate) => candidate.type === current.type);
  if (!kind) throw conflict('job_not_retryable', 'This kind of job can no longer run', [{ path: 'type', message: `${current.type} is not a job kind any more` }]);
  const inputFile = (current.input as { fileKey?: unknown }).fileKey;
  if (typeof inputFile === 'string') {
    // A run failed for good gave up its upload (recordJobFailure): running it again cannot help.
    const stored = await ctx.storage.get(inputFile).catch((error: unknown) => {
      if (error instanceof AppError && error.status === 404) return null;
      throw error;
    });
    if (!stored) throw conflict('job_input_gone', 'The uploaded file of this job is no longer stored; upload it again', [{ path: 'input.fileKey', message: 'no longer stored' }]);
    stored.body.destroy();
  }
  const { job, state } = await queuedJobOf(ctx, current.queue, jobId);
  if (state === 'active') throw conflict('job_not_retryable', 'The queue is still running this job', [{ path: 'status', message: 'still running' }]);
  if (job) await job.remove();

  return withTransaction(ctx, async (trx) => {
    const row = await lockedRun(trx, storeId, jobId);
    if (row.status !== 'failed') throw conflict('job_not_retryable', `Only a failed job can be retried; this one is ${row.status}`, [{ path: 'status', message: `is ${row.status}` }]);
    const [updated] = await trx('jobs')
      .where({ id: jobId })
      .update({ status: 'queued', error: null, finishedAt: null, attempts: 0, updatedAt: trx.fn.now() })
      .returning('*');
    await enqueueJob(trx, kind, { jobId, storeId }, { jobId });
    await recordAudit(ctx, trx, { storeId, action: 'job.retried', resourceType: 'job', resourceId: jobId, before: { status: row.status, error: row.error }, after: { status: 'queued' } });
    return toJobDto(updated as JobRow);
  });
}

/**
 * Cancels a run no worker has started: its outbox row (not yet relayed) and its BullMQ job
 * (waiting, or delayed between attempts) are removed, then the run ends `failed` with
 * CANCELLED_MESSAGE (the statuses stay the four the API has always had; `job.failed` webhooks and
 * event streams end as for a failure). 409 once a worker runs it: BullMQ refuses to remove a job
 * a worker holds, so a cancel never races a run into a half-done state.
 */
export async function cancelJob(ctx: AppContext, storeId: string, jobId: string): Promise<JobDto> {
  const notQueued = (status: string) => conflict('job_not_cancellable', `Only a queued job can be cancelled; this one is ${status}`, [{ path: 'status', message: `is ${status}` }]);
  // One transaction under the run's row lock (a worker marking it active waits on it): a refusal
  // from the queue rolls the outbox delete back, and the audit entry commits with the cancel.
  // The upload of a cancelled import is kept: retrying the run needs it (retryJob checks it is there).
  return withTransaction(ctx, async (trx) => {
    const row = await lockedRun(trx, storeId, jobId);
    if (row.status !== 'queued') throw notQueued(row.status);
    // Waits for a relay moving it right now; once that commits, the BullMQ job below exists.
    await withdrawJob(trx, jobId);
    const { job, state } = await queuedJobOf(ctx, row.queue, jobId);
    if (job) {
      if (state === 'active') throw notQueued('running');
      // BullMQ refuses to remove a job a worker holds the lock of.
      await job.remove().catch(() => {
        throw notQueued('running');
      });
    }
    const [updated] = await trx('jobs')
      .where({ id: jobId })
      .update({ status: 'failed', error: CANCELLED_MESSAGE, finishedAt: trx.fn.now(), updatedAt: trx.fn.now() })
      .returning('*');
    await reactInTransaction(ctx, trx, [{ type: 'job.finished', storeId, jobId, outcome: 'failed' }]);
    await recordAudit(ctx, trx, { storeId, action: 'job.cancelled', resourceType: 'job', resourceId: jobId, before: { status: row.status }, after: { status: 'failed', error: CANCELLED_MESSAGE } });
    return toJobDto(updated as JobRow);
  });
}
