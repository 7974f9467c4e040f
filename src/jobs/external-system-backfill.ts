import { trackedJob } from './tracked.js';

/** Pages products and customers from the linked external system. */
export const externalSystemBackfillJob = trackedJob({
  name: 'external-system-backfill',
  type: 'external_system.backfill',
  // Only counts (seen, changed, skipped per phase) or why it was skipped: no record's data.
  resultScope: 'read_jobs',
  queue: 'sync',
  options: { attempts: 5, backoff: { type: 'exponential', delay: 5_000 } },
  concurrency: 2
});
