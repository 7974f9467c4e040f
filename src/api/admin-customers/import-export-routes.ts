import Joi from 'joi';
import { badRequest } from '../../errors.js';
import { startCustomerExport, startCustomerImport } from '../../services/customers/index.js';
import { ADMINS } from '../../platform/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { isUploadedFile, type UploadedFile } from '../uploads.js';
import { customerTransferJobResponse } from './schemas.js';

export const CSV_IMPORT_LIMIT = 50 * 1024 * 1024;

/** hapi streams the body (or the multipart `file` part) to a temporary file; nothing is held in memory. */
function uploadedFile(payload: unknown): UploadedFile {
  if (isUploadedFile(payload)) return payload;
  const file = (payload as Record<string, unknown> | null)?.file;
  if (isUploadedFile(file)) return file;
  throw badRequest('Send the CSV as a text/csv body or as the multipart field "file"', [{ path: 'file', message: 'file is required' }]);
}

export const importCustomersRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/customers/import',
  options: {
    plugins: {
      openapi: {
        errors: [400, 413, 415],
        requestBody: {
          description: 'The CSV (header row first; columns in the README), up to 50 MB: the whole body, or the multipart field `file`',
          content: {
            'text/csv': { schema: { type: 'string', format: 'binary' } },
            'multipart/form-data': {
              schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'the CSV file' } }, additionalProperties: false },
              encoding: { file: { contentType: 'text/csv' } }
            }
          }
        }
      }
    },
    description:
      'Import customers from CSV (text/csv body or multipart field "file", up to 50 MB): 202 { job }. Upserts by email in a worker; ' +
      'bad rows are reported in the job result (row, column, message), good rows kept. dryRun=true only validates and counts.',
    tags: ['customers'],
    payload: {
      output: 'file',
      parse: true,
      multipart: { output: 'file' },
      maxBytes: CSV_IMPORT_LIMIT,
      timeout: 120_000,
      allow: ['text/csv', 'multipart/form-data']
    },
    // A 50 MB body may take the whole payload timeout to arrive: the response timeout must outlast it.
    timeout: { server: 150_000, socket: 170_000 },
    validate: { query: Joi.object({ dryRun: Joi.boolean().default(false) }) },
    response: { status: { 202: customerTransferJobResponse } },
    handler: async (request, h) => {
      const upload = uploadedFile(request.payload);
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
