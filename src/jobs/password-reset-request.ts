import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** A forgot-password request: looks the account up and mails the link (see services/password-reset.ts). */
export const passwordResetRequestJob = defineJob<{ email: string }>({
  name: 'password-reset-request',
  queue: 'email',
  payload: Joi.object({ email: Joi.string().required() }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
  concurrency: 10
});
