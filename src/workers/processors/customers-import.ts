import { customersImportJob } from '../../jobs/customers-import.js';
import { runCustomerImport } from '../../services/customers/index.js';
import { trackedProcessor } from './tracked.js';

export const customersImportProcessor = trackedProcessor(customersImportJob, (ctx, jobId, signal) => runCustomerImport(ctx, jobId, { signal }));
