import { passwordResetRequestJob } from '../../jobs/password-reset-request.js';
import { sendPasswordReset } from '../../services/password-reset.js';
import { processorOf } from '../processor.js';

export const passwordResetRequestProcessor = processorOf(passwordResetRequestJob, (ctx, job) => sendPasswordReset(ctx, job.data));
