import { stripeEventJob } from '../../jobs/stripe-event.js';
import { stripeEventFailedForGood } from '../../services/payments/index.js';
import { processStripeEvent } from '../../use-cases/stripe-events.js';
import { isFinalAttempt } from '../final-attempt.js';
import { processorOf } from '../processor.js';

/** Applies the stored event; one that fails for good is marked so and raises an issue. */
export const stripeEventProcessor = processorOf(stripeEventJob, async (ctx, job) => {
  try {
    return await processStripeEvent(ctx, job.data.eventId);
  } catch (error) {
    if (isFinalAttempt(job, error)) await stripeEventFailedForGood(ctx, job.data.eventId, error).catch(() => undefined);
    throw error;
  }
});
