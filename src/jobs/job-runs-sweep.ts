import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Every few minutes: job runs whose BullMQ job is gone (Redis flushed, removed) are failed, not left active. */
export const jobRunsSweepJob = defineJob<Record<string, never>>({
  name: 'job-runs-sweep',
  queue: 'maintenance',
  payload: Joi.object({}),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  schedule: { every: 5 * 60_000 }
});
