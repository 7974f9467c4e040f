import { customersExportJob } from '../../jobs/customers-export.js';
import { runCustomerExport } from '../../services/customers/export.js';
import { trackedProcessor } from './tracked.js';

export const customersExportProcessor = trackedProcessor(customersExportJob, (ctx, jobId) => runCustomerExport(ctx, jobId));
