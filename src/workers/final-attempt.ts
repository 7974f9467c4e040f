import { UnrecoverableError, type Job } from 'bullmq';
import { AppError } from '../errors.js';

/** Whether this failure is the last: no attempt left, or an error that would fail the same way again. */
export function isFinalAttempt(job: Job, error: unknown): boolean {
  const unrecoverable = error instanceof UnrecoverableError || (error instanceof AppError && error.status < 500);
  return unrecoverable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
