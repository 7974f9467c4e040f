import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Every minute: custom domains still waiting for their DNS records are checked again when due (growing intervals). */
export const domainRecheckJob = defineJob<Record<string, never>>({
  name: 'domain-recheck',
  queue: 'domains',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 60_000 }
});
