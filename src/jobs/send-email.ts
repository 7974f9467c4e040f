import Joi from 'joi';
import { defineJob } from './job-kind.js';

/** Fields of email jobs queued before payloads were sealed: still read (a deploy finds some queued), never written. */
export interface LegacyEmailFields {
  to?: string;
  data?: Record<string, unknown>;
  /** `data` encrypted with ENCRYPTION_KEY (invites). */
  sealedData?: string;
  content?: { subject: string; html: string; text: string };
  headers?: Record<string, string>;
}

/** An email job: ids, and the message sealed (services/email/sealed-message.ts); the recipient is its email_log row's. */
export interface SendEmailPayload extends LegacyEmailFields {
  emailLogId: string;
  storeId: string | null;
  templateKey: string | null;
  /** Template data or rendered content (campaigns render per recipient), and headers, encrypted. */
  sealed?: string;
  /** Marketing email: sent only if this customer is still subscribed when the job runs. */
  marketingCustomerId?: string;
  /** An order confirmation's number, drawn after the message was sealed (the order insert sets it). */
  orderNumber?: string;
}

/**
 * One email: transactional mail and test sends. The email_log row id is the job id. Ids only in
 * the clear: the recipient is the log row's, the rest is sealed (services/email/sealed-message.ts).
 */
export const sendEmailJob = defineJob<SendEmailPayload>({
  name: 'send-email',
  queue: 'email',
  payload: Joi.object({
    emailLogId: Joi.string().uuid().required(),
    storeId: Joi.string().uuid().allow(null).required(),
    templateKey: Joi.string().allow(null).required(),
    sealed: Joi.string(),
    marketingCustomerId: Joi.string().uuid(),
    orderNumber: Joi.string()
  }),
  options: { attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  concurrency: 10
});
