import { runCustomerExport } from '../services/customers/export.js';
import { trackedJob } from './tracked.js';

/** A customer CSV export (`jobs` row type `customers.export`), downloadable once completed. */
export const customersExportJob = trackedJob({
  name: 'customers-export',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1,
  run: (ctx, jobId) => runCustomerExport(ctx, jobId)
});
