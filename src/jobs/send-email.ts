import { deliverEmail, SEND_EMAIL_JOB, type DeliveryResult, type SendEmailPayload } from '../services/email/outbox.js';
import type { JobDefinition } from './definition.js';

export const sendEmailJob: JobDefinition<SendEmailPayload, DeliveryResult> = {
  queue: 'email',
  name: SEND_EMAIL_JOB,
  process: (ctx, job) => deliverEmail(ctx, job.data)
};
