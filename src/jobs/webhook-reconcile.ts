import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Every 15 minutes: stored webhook events that were never processed are replayed. */
export const webhookReconcileJob = defineJob<Record<string, never>>({
  name: 'webhook-reconcile',
  queue: 'webhooks',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 15 * 60_000 }
});
