import Joi from 'joi';
import { failCampaign, startCampaign } from '../services/marketing/start.js';
import { isFinalAttempt } from './final-attempt.js';
import { defineJob } from './job-kind.js';

/** Snapshots a campaign's recipients and fans out its batch jobs; enqueued with `runAt` = sendAt. */
export const campaignStartJob = defineJob<{ campaignId: string }, unknown>({
  name: 'campaign-start',
  queue: 'campaigns',
  payload: Joi.object({ campaignId: Joi.string().uuid().required() }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 2,
  async process(ctx, job) {
    try {
      return await startCampaign(ctx, job.data.campaignId);
    } catch (error) {
      if (isFinalAttempt(job, error)) await failCampaign(ctx, job.data.campaignId, (error as Error).message).catch(() => undefined);
      throw error;
    }
  }
});
