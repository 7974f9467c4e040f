import Joi from 'joi';
import { defineJob } from './job-kind.js';

/**
 * Sends one batch of a campaign (job id `campaign-<id>-batch-<n>`, so a repeated fan-out never
 * doubles it). Temporary SMTP failures retry the batch with backoff; on its last attempt the
 * recipients still deferred are failed so the campaign ends with exact counts.
 */
export const campaignBatchJob = defineJob<{ campaignId: string; batch: number }>({
  name: 'campaign-batch',
  queue: 'campaigns',
  payload: Joi.object({ campaignId: Joi.string().uuid().required(), batch: Joi.number().integer().min(0).required() }),
  options: { attempts: 8, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: { age: 3600, count: 1000 } },
  concurrency: 4
});
