import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Snapshots a campaign's recipients and fans out its batch jobs; enqueued with `runAt` = sendAt. */
export const campaignStartJob = defineJob<{ campaignId: string }>({
  name: 'campaign-start',
  queue: 'campaigns',
  payload: Joi.object({ campaignId: Joi.string().uuid().required() }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 2
});
