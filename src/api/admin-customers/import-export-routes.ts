import Joi from 'joi';
import { startCustomerExport, startCustomerImport } from '../../services/customers/import-export.js';
import { ADMINS } from '../../services/roles.js';
import { tenantOf } from '../plugins/auth.js';
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
    handler: async (request, h) => {
      const upload = uploadedCsv(request.payload);
      const { dryRun } = request.query as { dryRun: boolean };
      const job = await startCustomerImport(request.server.app.ctx, tenantOf(request), upload, { dryRun });
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    }
  }
});

export const exportCustomersRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/customers/export',
  options: {
    description: 'Export every customer to CSV in a worker: 202 { job }; download with GET /admin/jobs/{jobId}/download once completed',
    tags: ['customers'],
    response: { status: { 202: customerTransferJobResponse } },
    handler: async (request, h) => {
      const job = await startCustomerExport(request.server.app.ctx, tenantOf(request));
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    }
  }
});
