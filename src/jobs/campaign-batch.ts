import { CAMPAIGN_BATCH_JOB, type CampaignBatchPayload } from '../services/marketing/scheduling.js';
import { sendCampaignBatch } from '../services/marketing/send-batch.js';
import type { JobDefinition } from './definition.js';

/** Sends one batch of a campaign; on its last attempt, recipients still deferred are failed so the campaign ends. */
export const campaignBatchJob: JobDefinition<CampaignBatchPayload, unknown> = {
  queue: 'campaigns',
  name: CAMPAIGN_BATCH_JOB,
  process: (ctx, job) =>
    sendCampaignBatch(ctx, job.data.campaignId, job.data.batch, { finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) })
};
