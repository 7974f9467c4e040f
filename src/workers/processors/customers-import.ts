import { customersImportJob } from '../../jobs/customers-import.js';
import { runCustomerImport } from '../../services/customers/import.js';
import { trackedProcessor } from './tracked.js';

export const customersImportProcessor = trackedProcessor(customersImportJob, (ctx, jobId, signal) => runCustomerImport(ctx, jobId, { signal }));
