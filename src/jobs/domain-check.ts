import { DOMAIN_CHECK_JOB, runDomainCheckJob } from '../services/domains/check-job.js';
import { trackedJob } from './tracked.js';

export const domainCheckJob = trackedJob('domains', DOMAIN_CHECK_JOB, (ctx, jobId) => runDomainCheckJob(ctx, jobId));
