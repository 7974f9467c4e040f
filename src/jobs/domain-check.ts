import { trackedJob } from './tracked.js';

/** A DNS check of one store's custom domain (`jobs` row type `domains.check`). */
export const domainCheckJob = trackedJob({
  name: 'domain-check',
  queue: 'domains',
  options: { attempts: 3, backoff: { type: 'exponential', delay: 1_000 } },
  concurrency: 8
});
