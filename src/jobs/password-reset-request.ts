import Joi from 'joi';
import { sendPasswordReset, type PasswordResetRequest } from '../services/password-reset.js';
import { defineJob } from './job-kind.js';

/** A forgot-password request (the address sealed): looks the account up and mails the link (see password-reset.ts). */
export const passwordResetRequestJob = defineJob<PasswordResetRequest, { sent: boolean }>({
  name: 'password-reset-request',
  queue: 'email',
  payload: Joi.object({ sealedEmail: Joi.string().required() }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
  concurrency: 10,
  process: (ctx, job) => sendPasswordReset(ctx, job.data)
});
