import Joi from 'joi';
import { defineJob } from './job-kind.js';

/**
 * Every 5 minutes: campaigns left `sending` whose start or batch jobs will never run again (BullMQ
 * failed them itself after too many stalls, or they vanished) get new jobs, have their finished
 * batches marked done, or end (see services/marketing/sweep.ts). On the maintenance queue, so a
 * campaigns queue full of batch jobs never holds it back.
 */
export const campaignSweepJob = defineJob<Record<string, never>>({
  name: 'campaign-sweep',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 5 * 60_000 }
});
