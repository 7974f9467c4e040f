import { domainCheckJob } from '../../jobs/domain-check.js';
import { runDomainCheckJob } from '../../services/domains/index.js';
import { trackedProcessor } from './tracked.js';

export const domainCheckProcessor = trackedProcessor(domainCheckJob, (ctx, jobId) => runDomainCheckJob(ctx, jobId));
