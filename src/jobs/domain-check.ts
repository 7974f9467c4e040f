import { trackedJob } from './tracked.js';

/** A DNS check of one store's custom domain. */
export const domainCheckJob = trackedJob({
  name: 'domain-check',
  type: 'domains.check',
  // The hostname and which DNS records are wrong: published in DNS anyway, no customer or order data.
  resultScope: 'read_jobs',
  queue: 'domains',
  options: { attempts: 3, backoff: { type: 'exponential', delay: 1_000 } },
  concurrency: 8
});
