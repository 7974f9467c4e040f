import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Hourly: manual-payment orders unpaid past their store's `manualPaymentDays` are cancelled, their stock released, their buyers told. */
export const unpaidOrdersCancelJob = defineJob<Record<string, never>>({
  name: 'unpaid-orders-cancel',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: { attempts: 3, backoff: { type: 'exponential', delay: 10_000 }, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 3600_000 }
});
