import { trackedJob } from './tracked.js';

/** A customer CSV import (`jobs` row type `customers.import`); resumes from its checkpoint on retry. */
export const customersImportJob = trackedJob({
  name: 'customers-import',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
