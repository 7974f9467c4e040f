import { trackedJob } from './tracked.js';

/** A customer CSV export (`jobs` row type `customers.export`), downloadable once completed. */
export const customersExportJob = trackedJob({
  name: 'customers-export',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
