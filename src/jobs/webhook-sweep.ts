import Joi from 'joi';
import { defineJob } from './job-kind.js';

/**
 * Every 5 minutes: webhook deliveries left `pending` (or `delivering` under a lapsed claim) well
 * past their due time, with no job in the outbox (their BullMQ job failed for good or vanished),
 * get a new job, or are failed once their retry window is over.
 */
export const webhookSweepJob = defineJob<Record<string, never>>({
  name: 'webhook-sweep',
  queue: 'webhooks',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 5 * 60_000 }
});
