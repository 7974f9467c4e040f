import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** An order's tax to record with the provider (Stripe Tax), a refund's share of it to reverse, or an edited order's to record again. */
export interface TaxSyncPayload {
  storeId: string;
  orderId: string;
  /** With `amount`: reverse this refund's amount of the order's tax transaction. */
  refundId?: string;
  amount?: number;
  /** An edit's new calculation to record in place of the order's transaction (names the job: one per edit). */
  calculation?: string;
}

/**
 * Queued when the call after the order or the refund failed (the provider down or slow): retried
 * with backoff for about a day (10 attempts, 30 s doubling), each attempt idempotent at the provider
 * (the order's or the refund's idempotency key) and skipped once the order holds its transaction.
 */
export const taxSyncJob = defineJob<TaxSyncPayload>({
  name: 'tax-sync',
  queue: 'sync',
  payload: Joi.object({
    storeId: Joi.string().uuid().required(),
    orderId: Joi.string().uuid().required(),
    refundId: Joi.string().uuid(),
    amount: Joi.number().integer().min(1),
    calculation: Joi.string().max(255)
  }).and('refundId', 'amount'),
  options: { attempts: 10, backoff: { type: 'exponential', delay: 30_000 }, removeOnComplete: { count: 1_000 }, removeOnFail: { age: 30 * 24 * 3600 } }
});
