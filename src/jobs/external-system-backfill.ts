import { trackedJob } from './tracked.js';

/** Pages products and customers from the linked external system (`jobs` row type `external_system.backfill`). */
export const externalSystemBackfillJob = trackedJob({
  name: 'external-system-backfill',
  queue: 'sync',
  options: { attempts: 5, backoff: { type: 'exponential', delay: 5_000 } },
  concurrency: 2
});
