import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** 03:00 UTC every night: every store linked to an external system gets a backfill (a repeat changes nothing). */
export const externalSystemNightlySyncJob = defineJob<Record<string, never>>({
  name: 'external-system-nightly-sync',
  queue: 'sync',
  payload: Joi.object({}),
  options: { attempts: 3, removeOnComplete: { count: 30 }, removeOnFail: { count: 30 } },
  schedule: { pattern: '0 3 * * *' }
});
