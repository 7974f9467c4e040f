import type { AppContext } from '../../context.js';
import { campaignStartJob } from '../../jobs/campaign-start.js';
import { checkedPayload } from '../../jobs/job-kind.js';
import { compileContent } from '../../platform/liquid/email-content.js';
import { failCampaignContent } from './content-failure.js';
import { abandonBatch } from './send-batch.js';
import { batchJobId, enqueueBatches, startJobId } from './scheduling.js';
import { batchRange, completeBatch, failCampaign } from './start.js';

/**
 * How long a `sending` campaign must have gone without progress (no batch done since) before the
 * sweep looks at its jobs. A campaign making progress is not read at all; one that is read and whose
 * jobs are alive is left alone, so the grace only spares the job-state reads.
 */
const OVERDUE_MS = 10 * 60_000;
/** New jobs the sweep gives one batch (or start) before it gives that work up. */
export const MAX_REQUEUES = 3;
const BATCH = 200;

/** BullMQ states of a job that will still run. `completed`, `failed` and `unknown` (gone) will not. */
const LIVE_STATES = new Set(['waiting', 'wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused']);

export interface SweepResult {
  /** Start or batch jobs given again. */
  requeued: number;
  /** Batches found with nothing left to send, marked done. */
  completed: number;
  /** Batches given up after MAX_REQUEUES lost jobs: their unsent recipients failed. */
  abandoned: number;
  /** Campaigns that cannot be sent, failed with the reason. */
  failed: number;
}

interface StuckCampaign {
  id: string;
  storeId: string;
  snapshotAt: Date | null;
  batchesTotal: number;
  startRequeues: number;
  subject: string;
  html: string;
  text: string;
}

/**
 * Campaigns left `sending` by jobs that will never run again: a job BullMQ failed itself (stalled
 * more often than allowed, so our final-attempt handling never ran), or one that vanished. For each
 * campaign quiet for `overdueMs`:
 *
 * - not snapshotted yet, and no start job in the outbox or alive in BullMQ: a new start job (the start
 *   is idempotent), or, after MAX_REQUEUES, the campaign fails with the reason;
 * - content that can no longer be rendered: the campaign fails with the reason, as a batch would;
 * - each unfinished batch whose job is not alive: done at once when none of its recipients is left
 *   pending or claimed; else a new job under the batch's own id (the batch run settles claims of the
 *   dead run once they expire and skips those recorded sent, so nobody the SMTP server accepted is
 *   mailed again); after MAX_REQUEUES lost jobs, once no live claim is left, given up as a last
 *   attempt would (its unsent recipients failed), which ends the campaign when it was the last.
 */
export async function sweepStuckCampaigns(ctx: AppContext, options: { overdueMs?: number } = {}): Promise<SweepResult> {
  const result: SweepResult = { requeued: 0, completed: 0, abandoned: 0, failed: 0 };
  const stuck: StuckCampaign[] = await ctx
    .db('campaigns')
    .comment('cross-store: stuck campaigns sweep')
    .where({ status: 'sending' })
    .where('updatedAt', '<', ctx.db.raw(`now() - ? * interval '1 millisecond'`, [options.overdueMs ?? OVERDUE_MS]))
    .orderBy('updatedAt')
    .limit(BATCH)
    .select('id', 'storeId', 'snapshotAt', 'batchesTotal', 'startRequeues', 'subject', 'html', 'text');
  for (const campaign of stuck) {
    if (!campaign.snapshotAt) await sweepStart(ctx, campaign, result);
    else await sweepBatches(ctx, campaign, result);
  }
  if (Object.values(result).some(Boolean)) ctx.log.info({ ...result }, 'campaigns swept');
  return result;
}

/** Start and batch jobs share one queue. */
const campaignQueue = (ctx: AppContext) => ctx.queues.get(campaignStartJob.queue);

/** Whether the job will still run: alive in BullMQ, or waiting in the outbox to be moved there. */
async function jobAlive(ctx: AppContext, jobId: string): Promise<{ alive: boolean; state: string }> {
  const state = await campaignQueue(ctx).getJobState(jobId);
  if (LIVE_STATES.has(state)) return { alive: true, state };
  const relayed = await ctx.db('outbox').where({ jobId }).first('id');
  return { alive: Boolean(relayed), state };
}

/** A finished job keeps its id in BullMQ, where a new job under that id would be ignored: removed first. */
async function clearFinished(ctx: AppContext, jobId: string, state: string): Promise<void> {
  if (state !== 'unknown') await campaignQueue(ctx).remove(jobId);
}

async function sweepStart(ctx: AppContext, campaign: StuckCampaign, result: SweepResult): Promise<void> {
  const jobId = startJobId(campaign.id);
  const { alive, state } = await jobAlive(ctx, jobId);
  if (alive) return;
  if (campaign.startRequeues >= MAX_REQUEUES) {
    await failCampaign(ctx, campaign.id, `its start job was lost ${campaign.startRequeues + 1} times (the worker running it stopped each time); nobody was sent to`);
    result.failed += 1;
    return;
  }
  const counted = await ctx.db('campaigns').where({ storeId: campaign.storeId, id: campaign.id, status: 'sending' }).whereNull('snapshotAt').increment('startRequeues', 1);
  if (!counted) return;
  await clearFinished(ctx, jobId, state);
  await campaignQueue(ctx).add(campaignStartJob.name, checkedPayload(campaignStartJob, { campaignId: campaign.id }), { ...campaignStartJob.options, jobId });
  result.requeued += 1;
}

async function sweepBatches(ctx: AppContext, campaign: StuckCampaign, result: SweepResult): Promise<void> {
  const unfinished: Array<{ batch: number; requeues: number }> = await ctx
    .db('campaignBatches')
    .where({ storeId: campaign.storeId, campaignId: campaign.id })
    .whereNull('doneAt')
    .orderBy('batch')
    .select('batch', 'requeues');
  let contentChecked = false;
  for (const { batch, requeues } of unfinished) {
    const jobId = batchJobId(campaign.id, batch);
    const { alive, state } = await jobAlive(ctx, jobId);
    if (alive) continue;
    const left = await recipientsLeft(ctx, campaign, batch);
    if (!left.pending && !left.claimed) {
      await completeBatch(ctx, campaign.storeId, campaign.id, batch);
      result.completed += 1;
      continue;
    }
    if (!contentChecked) {
      contentChecked = true;
      try {
        compileContent(campaign);
      } catch (error) {
        await failCampaignContent(ctx, campaign.storeId, campaign.id, `content cannot be rendered: ${(error as Error).message}`);
        result.failed += 1;
        return;
      }
    }
    if (requeues >= MAX_REQUEUES) {
      // A run that may still be sending keeps its recipients until its claims lapse: next sweep.
      if (left.liveClaims) continue;
      await abandonBatch(ctx, campaign.id, batch, `its job was lost ${requeues + 1} times (the worker running it stopped each time)`);
      result.abandoned += 1;
      continue;
    }
    const counted = await ctx.db('campaignBatches').where({ storeId: campaign.storeId, campaignId: campaign.id, batch }).whereNull('doneAt').increment('requeues', 1);
    if (!counted) continue;
    await clearFinished(ctx, jobId, state);
    await enqueueBatches(ctx, campaign.id, [batch]);
    result.requeued += 1;
  }
}

/** The batch's recipients not settled yet: pending, and claimed (`sending`), of which under a live claim. */
async function recipientsLeft(ctx: AppContext, campaign: StuckCampaign, batch: number) {
  const [from, to] = batchRange(batch, campaign.batchesTotal);
  const { rows } = await ctx.db.raw(
    `select count(*) filter (where status = 'pending')::int as pending,
            count(*) filter (where status = 'sending')::int as claimed,
            count(*) filter (where status = 'sending' and claim_expires_at > now())::int as live_claims
       from campaign_recipients
      where store_id = ? and campaign_id = ? and customer_id >= ? and (?::uuid is null or customer_id < ?::uuid) and status in ('pending', 'sending')`,
    [campaign.storeId, campaign.id, from, to, to]
  );
  return rows[0] as { pending: number; claimed: number; liveClaims: number };
}
