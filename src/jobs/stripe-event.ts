import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** One stored Stripe event (payment succeeded/failed, refund, account update); the event id is the job id. */
export const stripeEventJob = defineJob<{ eventId: string }>({
  name: 'stripe-event',
  queue: 'webhooks',
  payload: Joi.object({ eventId: Joi.string().max(255).required() }),
  options: { attempts: 6, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 8
});
