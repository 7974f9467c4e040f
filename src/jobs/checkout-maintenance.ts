import Joi from 'joi';
import { defineJob } from './job-kind.js';

const housekeeping = { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };

/** Every minute: checkout sessions past their expiry give their reserved stock and discount use back. */
export const checkoutReservationsReleaseJob = defineJob<Record<string, never>>({
  name: 'checkout-reservations-release',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: housekeeping,
  schedule: { every: 60_000 }
});

/** Hourly: carts past their expiry (and holding no pending session) are deleted. */
export const expiredCartsCleanupJob = defineJob<Record<string, never>>({
  name: 'expired-carts-cleanup',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: housekeeping,
  schedule: { every: 60 * 60_000 }
});

/** Hourly: Idempotency-Key records older than 24 h are forgotten. */
export const idempotencyKeysPurgeJob = defineJob<Record<string, never>>({
  name: 'idempotency-keys-purge',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: housekeeping,
  schedule: { every: 60 * 60_000 }
});
