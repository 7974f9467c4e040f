import { customersExportJob } from '../../jobs/customers-export.js';
import { runCustomerExport } from '../../services/customers/index.js';
import { trackedProcessor } from './tracked.js';

export const customersExportProcessor = trackedProcessor(customersExportJob, (ctx, jobId) => runCustomerExport(ctx, jobId));
