import Joi from 'joi';
import { processStripeEvent, stripeEventFailedForGood } from '../services/payments/webhooks.js';
import { isFinalAttempt } from './final-attempt.js';
import { defineJob } from './job-kind.js';

/** One stored Stripe event (payment succeeded/failed, refund, account update); the event id is the job id. */
export const stripeEventJob = defineJob<{ eventId: string }, { eventId: string; outcome: string }>({
  name: 'stripe-event',
  queue: 'webhooks',
  payload: Joi.object({ eventId: Joi.string().max(255).required() }),
  options: { attempts: 6, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 8,
  async process(ctx, job) {
    try {
      return await processStripeEvent(ctx, job.data.eventId);
    } catch (error) {
      if (isFinalAttempt(job, error)) await stripeEventFailedForGood(ctx, job.data.eventId, error).catch(() => undefined);
      throw error;
    }
  }
});
