import { trackedJob } from './tracked.js';

/** A customer CSV import; resumes from its checkpoint on retry. */
export const customersImportJob = trackedJob({
  name: 'customers-import',
  type: 'customers.import',
  // Its row errors quote the customer file's cells (an invalid email is repeated back).
  resultScope: 'read_customers',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
