import { runCustomerExport } from '../services/customers/export.js';
import { runCustomerImport } from '../services/customers/import.js';
import { CUSTOMERS_EXPORT_JOB, CUSTOMERS_IMPORT_JOB } from '../services/customers/transfers.js';
import { trackedJob } from './tracked.js';

export const customersImportJob = trackedJob('imports', CUSTOMERS_IMPORT_JOB, (ctx, jobId) => runCustomerImport(ctx, jobId));
export const customersExportJob = trackedJob('imports', CUSTOMERS_EXPORT_JOB, (ctx, jobId) => runCustomerExport(ctx, jobId));
