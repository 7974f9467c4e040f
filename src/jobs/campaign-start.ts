import { UnrecoverableError } from 'bullmq';
import { AppError } from '../errors.js';
import { CAMPAIGN_START_JOB, type CampaignStartPayload } from '../services/marketing/scheduling.js';
import { failCampaign, startCampaign } from '../services/marketing/start.js';
import type { JobDefinition } from './definition.js';

/** Snapshots a campaign's recipients and fans out its batch jobs (at sendAt, through the job's delay). */
export const campaignStartJob: JobDefinition<CampaignStartPayload, unknown> = {
  queue: 'campaigns',
  name: CAMPAIGN_START_JOB,
  async process(ctx, job) {
    try {
      return await startCampaign(ctx, job.data.campaignId);
    } catch (error) {
      const final = error instanceof UnrecoverableError || (error instanceof AppError && error.status < 500) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (final) await failCampaign(ctx, job.data.campaignId, (error as Error).message).catch(() => undefined);
      throw error;
    }
  }
};
