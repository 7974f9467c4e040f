import Joi from 'joi';
import { badRequest } from '../../errors.js';
import { startCustomerExport, startCustomerImport } from '../../services/customers/index.js';
import { ADMINS } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { csvUploadOptions, uploadedCsv } from '../uploads.js';
import { customerTransferJobResponse } from './schemas.js';

export const importCustomersRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/customers/import',
  options: {
    ...csvUploadOptions('The CSV (header row first; columns in docs/api.md), up to 50 MB: the whole body, or the multipart field `file`'),
    description:
      'Import customers from CSV (text/csv body or multipart field "file", up to 50 MB): 202 { job }. Upserts by email in a worker; ' +
      'bad rows are reported in the job result (row, column, message), good rows kept. dryRun=true only validates and counts.',
    tags: ['customers'],
    validate: { query: Joi.object({ dryRun: Joi.boolean().default(false) }) },
    response: { status: { 202: customerTransferJobResponse } },
    handler: adminHandler<{}, unknown, { dryRun: boolean }>(async ({ ctx, actor, payload, query, h }) => {
      const upload = uploadedCsv(payload);
      const job = await startCustomerImport(ctx, actor, upload, { dryRun: query.dryRun });
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    })
  }
});

export const exportCustomersRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/customers/export',
  options: {
    description: 'Export every customer to CSV in a worker: 202 { job }; download with GET /admin/jobs/{jobId}/download once completed',
    tags: ['customers'],
    response: { status: { 202: customerTransferJobResponse } },
    handler: adminHandler(async ({ ctx, actor, h }) => {
      const job = await startCustomerExport(ctx, actor);
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    })
  }
});
