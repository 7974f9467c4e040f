import Joi from 'joi';
import { defineJob } from './job-kind.js';

export interface SendEmailPayload {
  emailLogId: string;
  storeId: string | null;
  to: string;
  templateKey: string | null;
  /** Either a template key with its data, or content already rendered (campaigns render per recipient). */
  data?: Record<string, unknown>;
  /** `data` encrypted with ENCRYPTION_KEY, for mail that carries a secret link (invites). */
  sealedData?: string;
  content?: { subject: string; html: string; text: string };
  headers?: Record<string, string>;
  /** Marketing email: sent only if this customer is still subscribed when the job runs. */
  marketingCustomerId?: string;
}

const content = Joi.object({ subject: Joi.string().allow('').required(), html: Joi.string().allow('').required(), text: Joi.string().allow('').required() });

/** One email: transactional mail and test sends. The email_log row id is the job id. */
export const sendEmailJob = defineJob<SendEmailPayload>({
  name: 'send-email',
  queue: 'email',
  payload: Joi.object({
    emailLogId: Joi.string().uuid().required(),
    storeId: Joi.string().uuid().allow(null).required(),
    to: Joi.string().required(),
    templateKey: Joi.string().allow(null).required(),
    data: Joi.object().unknown(true),
    sealedData: Joi.string(),
    content,
    headers: Joi.object().pattern(Joi.string(), Joi.string()),
    marketingCustomerId: Joi.string().uuid()
  }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 10
});
