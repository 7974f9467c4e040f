import { campaignStartJob } from '../../jobs/campaign-start.js';
import { failCampaign, startCampaign } from '../../services/marketing/index.js';
import { isFinalAttempt } from '../final-attempt.js';
import { processorOf } from '../processor.js';

/** Starts the campaign; one that cannot start for good is marked failed. */
export const campaignStartProcessor = processorOf(campaignStartJob, async (ctx, job) => {
  try {
    return await startCampaign(ctx, job.data.campaignId);
  } catch (error) {
    if (isFinalAttempt(job, error)) await failCampaign(ctx, job.data.campaignId, (error as Error).message).catch(() => undefined);
    throw error;
  }
});
