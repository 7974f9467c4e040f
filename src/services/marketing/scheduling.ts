import type { AppContext } from '../../context.js';
import { campaignBatchJob } from '../../jobs/campaign-batch.js';
import { campaignStartJob } from '../../jobs/campaign-start.js';
import { checkedPayload } from '../../jobs/job-kind.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import type { Transaction } from '../../db/transaction.js';

/** Job ids are deterministic: a repeated enqueue or a retried start never doubles a job. */
export const startJobId = (campaignId: string) => `campaign-start-${campaignId}`;
export const batchJobId = (campaignId: string, batch: number) => `campaign-${campaignId}-batch-${batch}`;

/** Records the campaign's start job in the campaign's own transaction, to run at sendAt (or now). */
export async function scheduleCampaignStart(trx: Transaction, campaignId: string, sendAt: Date | null): Promise<void> {
  await enqueueJob(trx, campaignStartJob, { campaignId }, { jobId: startJobId(campaignId), ...(sendAt ? { runAt: new Date(sendAt) } : {}) });
}

/**
 * Fans a campaign out into one job per unfinished batch with addBulk, straight from the start job
 * (the snapshot they depend on is committed; deterministic ids make a repeat a no-op).
 */
export async function enqueueBatches(ctx: AppContext, campaignId: string, batches: number[]): Promise<void> {
  const queue = ctx.queues.get(campaignBatchJob.queue);
  for (let i = 0; i < batches.length; i += 1000) {
    await queue.addBulk(
      batches.slice(i, i + 1000).map((batch) => ({
        name: campaignBatchJob.name,
        data: checkedPayload(campaignBatchJob, { campaignId, batch }),
        opts: { ...campaignBatchJob.options, jobId: batchJobId(campaignId, batch) }
      }))
    );
  }
}
