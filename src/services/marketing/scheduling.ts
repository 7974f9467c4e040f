import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';

export const CAMPAIGN_START_JOB = 'campaign-start';
export const CAMPAIGN_BATCH_JOB = 'campaign-batch';

export interface CampaignStartPayload {
  campaignId: string;
}

export interface CampaignBatchPayload {
  campaignId: string;
  batch: number;
}

/** Job ids are deterministic: a repeated enqueue or a retried start never doubles a job. */
export const startJobId = (campaignId: string) => `campaign-start-${campaignId}`;
export const batchJobId = (campaignId: string, batch: number) => `campaign-${campaignId}-batch-${batch}`;

/** Batch jobs retry transient SMTP failures with backoff; more attempts than a recipient gets. */
export const BATCH_JOB_OPTIONS = { attempts: 8, backoff: { type: 'exponential', delay: 1_000 } } as const;
export const RECIPIENT_MAX_ATTEMPTS = 5;

/** Written in the campaign's transaction once the platform outbox lands; until then see afterCommitScheduling. */
export async function scheduleCampaignStart(_ctx: AppContext, _trx: Knex.Transaction, _campaignId: string, _sendAt: Date | null): Promise<void> {}

/** Queues the campaign's start job (delayed until sendAt), after its row committed. */
export async function afterCommitScheduling(ctx: AppContext, campaignId: string): Promise<void> {
  const row = await ctx.db('campaigns').where({ id: campaignId }).first('sendAt');
  const delay = row?.sendAt ? Math.max(0, new Date(row.sendAt).getTime() - Date.now()) : 0;
  await ctx.queues.add('campaigns', CAMPAIGN_START_JOB, { campaignId } satisfies CampaignStartPayload, { jobId: startJobId(campaignId), delay });
}

/** Fans a campaign out into one job per unfinished batch (ids are deterministic, so repeats are no-ops). */
export async function enqueueBatches(ctx: AppContext, campaignId: string, batches: number[]): Promise<void> {
  const queue = ctx.queues.get('campaigns');
  for (let i = 0; i < batches.length; i += 1000) {
    await queue.addBulk(
      batches.slice(i, i + 1000).map((batch) => ({
        name: CAMPAIGN_BATCH_JOB,
        data: { campaignId, batch } satisfies CampaignBatchPayload,
        opts: { jobId: batchJobId(campaignId, batch), ...BATCH_JOB_OPTIONS }
      }))
    );
  }
}
