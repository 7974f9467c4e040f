import Joi from 'joi';
import { deliverEmail, type DeliveryResult, type SendEmailPayload } from '../services/email/delivery.js';
import { raiseEmailFailureIssue } from '../services/operations/failure-issues.js';
import { isFinalAttempt } from './final-attempt.js';
import { defineJob } from './job-kind.js';

/**
 * One email: transactional mail and test sends. The email_log row id is the job id. Ids only in
 * the clear: the recipient is the log row's, the rest is sealed (services/email/sealed-message.ts).
 */
export const sendEmailJob = defineJob<SendEmailPayload, DeliveryResult>({
  name: 'send-email',
  queue: 'email',
  payload: Joi.object({
    emailLogId: Joi.string().uuid().required(),
    storeId: Joi.string().uuid().allow(null).required(),
    templateKey: Joi.string().allow(null).required(),
    sealed: Joi.string(),
    marketingCustomerId: Joi.string().uuid()
  }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 10,
  async process(ctx, job) {
    try {
      return await deliverEmail(ctx, job.data);
    } catch (error) {
      if (isFinalAttempt(job, error)) await raiseEmailFailureIssue(ctx, job.data, (error as Error).message).catch(() => undefined);
      throw error;
    }
  }
});
