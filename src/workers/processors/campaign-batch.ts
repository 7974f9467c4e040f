import { campaignBatchJob } from '../../jobs/campaign-batch.js';
import { abandonBatch, sendCampaignBatch } from '../../services/marketing/index.js';
import { isFinalAttempt } from '../final-attempt.js';
import { processorOf } from '../processor.js';

/** Sends the batch; on its last attempt the recipients it had not sent are failed. */
export const campaignBatchProcessor = processorOf(campaignBatchJob, async (ctx, job, signal) => {
  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  try {
    return await sendCampaignBatch(ctx, job.data.campaignId, job.data.batch, { finalAttempt, signal });
  } catch (error) {
    if (isFinalAttempt(job, error)) await abandonBatch(ctx, job.data.campaignId, job.data.batch, (error as Error).message).catch(() => undefined);
    throw error;
  }
});
