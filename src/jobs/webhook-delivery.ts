import Joi from 'joi';
import { defineJob } from './job-kind.js';

export interface WebhookDeliveryPayload {
  deliveryId: string;
  /** The delivery's subscription, so an attempt takes the endpoint's in-flight slot before any database read (older jobs lack it). */
  subscriptionId?: string;
  /** How many times this attempt has already waited for an in-flight cap (its next wait is longer). */
  deferrals?: number;
}

/**
 * One attempt at one webhook delivery. Retries are new jobs written with the attempt's outcome
 * (the schedule is the delivery's, not BullMQ's); BullMQ's own attempts only re-run an attempt
 * whose worker died or whose endpoint or destination was at its in-flight cap.
 */
export const webhookDeliveryJob = defineJob<WebhookDeliveryPayload>({
  name: 'webhook-delivery',
  queue: 'webhooks',
  payload: Joi.object({ deliveryId: Joi.string().uuid().required(), subscriptionId: Joi.string().uuid(), deferrals: Joi.number().integer().min(0) }),
  options: { attempts: 20, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: { age: 3600, count: 10_000 } },
  // Mostly waiting on receivers; one slow endpoint holds at most its in-flight cap of these.
  concurrency: 50
});
