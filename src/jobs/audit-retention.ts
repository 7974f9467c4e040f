import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Hourly: audit entries past their store's retention (default 365 days) are purged. */
export const auditRetentionJob = defineJob<Record<string, never>>({
  name: 'audit-retention',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 60 * 60_000 }
});
