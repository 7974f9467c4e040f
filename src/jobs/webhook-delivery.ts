import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** One delivery a job attempts, with its subscription (the endpoint whose in-flight slot it takes). */
export interface DeliveryRef {
  deliveryId: string;
  subscriptionId: string;
}

export interface WebhookDeliveryPayload {
  deliveryId?: string;
  /** The delivery's subscription, so an attempt takes the endpoint's in-flight slot before any database read (older jobs lack it). */
  subscriptionId?: string;
  /** How many times this attempt (or batch of attempts) has already waited for an in-flight cap (its next wait is longer). */
  deferrals?: number;
  /**
   * The first attempts of deliveries written together (one event's fan-out to a store's
   * subscriptions, or a bulk write's events), in place of `deliveryId`: one job for up to
   * DELIVERY_BATCH_MAX of them, since on the PostgreSQL queue BullMQ's own work per job (add,
   * claim, completion: about 1.5 ms of CPU) cost more than the delivery it carried.
   */
  deliveries?: DeliveryRef[];
}

/** At most this many deliveries in one job: a store's whole fan-out (20 subscriptions at most) fits. */
export const DELIVERY_BATCH_MAX = 25;

const uuid = Joi.string().uuid();

/**
 * One attempt at one webhook delivery, or the first attempts of a batch of them. Retries are new
 * jobs of one delivery each, written with the attempt's outcome (the schedule is the delivery's, not
 * BullMQ's); BullMQ's own attempts only re-run an attempt whose worker died or whose endpoint or
 * destination was at its in-flight cap, and a batch re-runs only the deliveries that did not finish.
 */
export const webhookDeliveryJob = defineJob<WebhookDeliveryPayload>({
  name: 'webhook-delivery',
  queue: 'webhooks',
  payload: Joi.object({
    deliveryId: uuid,
    subscriptionId: uuid,
    deferrals: Joi.number().integer().min(0),
    deliveries: Joi.array().items(Joi.object({ deliveryId: uuid.required(), subscriptionId: uuid.required() })).min(1).max(DELIVERY_BATCH_MAX)
  }).xor('deliveryId', 'deliveries').oxor('deliveries', 'subscriptionId'),
  options: { attempts: 20, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: { age: 3600, count: 10_000 } },
  // Mostly waiting on receivers; one slow endpoint holds at most its in-flight cap of these.
  concurrency: 50
});
