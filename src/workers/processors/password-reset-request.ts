import { passwordResetRequestJob } from '../../jobs/password-reset-request.js';
import { sendPasswordReset } from '../../services/accounts/index.js';
import { processorOf } from '../processor.js';

export const passwordResetRequestProcessor = processorOf(passwordResetRequestJob, (ctx, job) => sendPasswordReset(ctx, job.data));
