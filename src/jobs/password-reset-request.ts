import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** The job's payload: the address sealed with ENCRYPTION_KEY (`email`, in the clear, only in jobs queued before). */
export interface PasswordResetRequest {
  sealedEmail?: string;
  email?: string;
}

/** A forgot-password request (the address sealed): looks the account up and mails the link (see services/password-reset.ts). */
export const passwordResetRequestJob = defineJob<PasswordResetRequest>({
  name: 'password-reset-request',
  queue: 'email',
  payload: Joi.object({ sealedEmail: Joi.string().required() }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
  concurrency: 10
});
