import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Hourly: variants at or below the low-stock threshold become (or stay) open issues; restocked ones resolve. */
export const lowStockScanJob = defineJob<Record<string, never>>({
  name: 'low-stock-scan',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: { attempts: 3, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 3600_000 }
});
