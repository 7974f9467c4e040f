import { trackedJob } from './tracked.js';

/** A customer CSV export, downloadable once completed. */
export const customersExportJob = trackedJob({
  name: 'customers-export',
  type: 'customers.export',
  // The file is the store's customers.
  resultScope: 'read_customers',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
