import Joi from 'joi';
import { defineJob } from './job-kind.js';

/**
 * Every minute: audit entries still pending (their process stopped before its seal, a moment after
 * the change) are sealed into their store's chain. A running process seals its own within ~50 ms.
 */
export const auditSealJob = defineJob<Record<string, never>>({
  name: 'audit-seal',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 60_000 }
});
