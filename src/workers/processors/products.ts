import { productsBulkJob } from '../../jobs/products-bulk.js';
import { productsExportJob } from '../../jobs/products-export.js';
import { productsImportJob } from '../../jobs/products-import.js';
import { runProductBulk } from '../../services/catalog/bulk.js';
import { runProductExport } from '../../services/catalog/csv/product-export.js';
import { runProductImport } from '../../services/catalog/csv/product-import.js';
import { trackedProcessor } from './tracked.js';

export const productsImportProcessor = trackedProcessor(productsImportJob, (ctx, jobId, signal) => runProductImport(ctx, jobId, { signal }));
export const productsExportProcessor = trackedProcessor(productsExportJob, (ctx, jobId) => runProductExport(ctx, jobId));
export const productsBulkProcessor = trackedProcessor(productsBulkJob, (ctx, jobId, signal) => runProductBulk(ctx, jobId, { signal }));
