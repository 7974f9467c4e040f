import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AppContext } from '../../context.js';
import type { Tenant } from '../../platform/roles.js';
import { customersExportJob } from '../../jobs/customers-export.js';
import { customersImportJob } from '../../jobs/customers-import.js';
import { createJob } from '../job-history/index.js';
import { assertImportableCsv } from './csv-columns.js';
import type { CustomerImportInput } from './import.js';

/**
 * Takes an uploaded CSV (already streamed to a temporary file by hapi): checks it looks like a
 * customer CSV (400 otherwise), stores it under the job's key and queues the import job.
 */
export async function startCustomerImport(ctx: AppContext, tenant: Tenant, upload: { path: string; bytes: number }, options: { dryRun: boolean }) {
  try {
    await assertImportableCsv(upload.path);
  } catch (error) {
    await rm(upload.path, { force: true });
    throw error;
  }
  const jobId = randomUUID();
  const fileKey = `imports/${tenant.storeId}/${jobId}.csv`;
  try {
    await ctx.storage.put(fileKey, createReadStream(upload.path), { contentType: 'text/csv' });
  } finally {
    await rm(upload.path, { force: true });
  }
  const input: CustomerImportInput = { fileKey, dryRun: options.dryRun };
  return createJob(ctx, {
    id: jobId,
    storeId: tenant.storeId,
    kind: customersImportJob,
    input: { ...input, bytes: upload.bytes },
    createdBy: tenant.userId
  });
}

export async function startCustomerExport(ctx: AppContext, tenant: Tenant) {
  return createJob(ctx, {
    storeId: tenant.storeId,
    kind: customersExportJob,
    createdBy: tenant.userId
  });
}
