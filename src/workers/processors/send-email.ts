import { sendEmailJob } from '../../jobs/send-email.js';
import { deliverEmail } from '../../services/email/index.js';
import { raiseEmailFailureIssue } from '../../services/issues/index.js';
import { isFinalAttempt } from '../final-attempt.js';
import { processorOf } from '../processor.js';

/** Delivers the email; one refused on its last attempt raises an issue for the store. */
export const sendEmailProcessor = processorOf(sendEmailJob, async (ctx, job) => {
  try {
    return await deliverEmail(ctx, job.data);
  } catch (error) {
    if (isFinalAttempt(job, error)) await raiseEmailFailureIssue(ctx, job.data, (error as Error).message).catch(() => undefined);
    throw error;
  }
});
