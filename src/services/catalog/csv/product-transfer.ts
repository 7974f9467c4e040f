import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AppContext } from '../../../context.js';
import { badRequest, conflict } from '../../../errors.js';
import { productsExportJob } from '../../../jobs/products-export.js';
import { productsImportJob } from '../../../jobs/products-import.js';
import { sniffCsvHeader } from '../../csv/sniff.js';
import { createJob } from '../../job-history/job-runs.js';
import type { Tenant } from '../../roles.js';
import { storageFor } from '../../storage/index.js';
import { withTransaction } from '../../with-transaction.js';
import type { ImportMode } from './product-import-apply.js';
import { PRODUCTS_EXPORT_JOB_TYPE, type ProductExportFilters } from './product-export.js';
import { PRODUCTS_IMPORT_JOB_TYPE, type ProductImportInput } from './product-import.js';
import { mapProductHeader } from './shopify-columns.js';

/**
 * Takes an uploaded product CSV (already streamed to a temporary file by hapi): 400 unless its
 * header has a Handle column; 409 `import_running` while another product import of the store is
 * queued or running (one at a time: two imports of overlapping handles would race on the same
 * products). The check and the job row are one transaction under a per-store advisory lock, so two
 * requests at once cannot both pass it.
 */
export async function startProductImport(ctx: AppContext, tenant: Tenant, upload: { path: string; bytes: number }, options: { mode: ImportMode }) {
  const jobId = randomUUID();
  const fileKey = `imports/${tenant.storeId}/${jobId}.csv`;
  try {
    const header = await sniffCsvHeader(upload.path);
    if (!header || !mapProductHeader(header)) {
      throw badRequest('The CSV file has no header row with a Handle column (Shopify product CSV)', [{ path: 'file', message: 'a Handle column is required' }]);
    }
    await storageFor(ctx).put(fileKey, createReadStream(upload.path), { contentType: 'text/csv' });
  } finally {
    await rm(upload.path, { force: true });
  }
  const input: ProductImportInput = { fileKey, mode: options.mode };
  try {
    return await withTransaction(ctx, async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`products.import:${tenant.storeId}`]);
      const running = await trx('jobs').where({ storeId: tenant.storeId, type: PRODUCTS_IMPORT_JOB_TYPE }).whereIn('status', ['queued', 'active']).first('id');
      if (running) {
        throw conflict('import_running', 'A product import of this store is still running: wait for it to finish', [{ path: 'file', message: `job ${running.id} is running` }]);
      }
      return createJob(ctx, { id: jobId, storeId: tenant.storeId, type: PRODUCTS_IMPORT_JOB_TYPE, kind: productsImportJob, input: { ...input, bytes: upload.bytes }, createdBy: tenant.userId }, trx);
    });
  } catch (error) {
    await storageFor(ctx).delete(fileKey);
    throw error;
  }
}

export async function startProductExport(ctx: AppContext, tenant: Tenant, filters: ProductExportFilters) {
  return createJob(ctx, { storeId: tenant.storeId, type: PRODUCTS_EXPORT_JOB_TYPE, kind: productsExportJob, input: { ...filters }, createdBy: tenant.userId });
}
