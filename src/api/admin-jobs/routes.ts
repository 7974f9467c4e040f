import Joi from 'joi';
import { recordBulkRead } from '../../services/audit/bulk-read.js';
import { storageFor } from '../../services/storage/index.js';
import { getJob, jobFileKey, listJobs } from '../../services/job-history/job-runs.js';
import { paginationMeta } from '../../services/pagination.js';
import { ADMINS } from '../../services/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { jobListResponse, jobResponse } from './schemas.js';

export const listJobsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs',
  options: {
    description: 'List background jobs of the store (newest first), e.g. ?type=customers.import; each result is a summary (lists replaced by <name>Count); GET /admin/jobs/{jobId} has the full result',
    tags: ['jobs'],
    validate: { query: Joi.object({ ...paginationQuery, type: Joi.string().trim().max(100) }) },
    response: { status: { 200: jobListResponse } },
    handler: async (request) => {
      const { limit, cursor, type } = request.query as { limit: number; cursor?: string; type?: string };
      const result = await listJobs(request.server.app.ctx, tenantOf(request).storeId, { type }, { limit, cursor });
      return withMeta({ jobs: result.jobs }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const getJobRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}',
  options: {
    description: 'A job: status (queued/active/completed/failed), progress, result, error',
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    response: { status: { 200: jobResponse } },
    handler: async (request) => ({ job: await getJob(request.server.app.ctx, tenantOf(request).storeId, request.params.jobId as string) })
  }
});

export const downloadJobFileRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}/download',
  options: {
    description: "A completed export job's file (text/csv); 409 while the export is queued, active or failed; 404 for other jobs",
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    plugins: {
      openapi: {
        errors: [409],
        success: {
          status: 200,
          description: 'The export as CSV (one header row, then one row per customer, or Shopify\'s product rows), as an attachment',
          content: { 'text/csv': { schema: { type: 'string' } } }
        }
      }
    },
    handler: async (request, h) => {
      const ctx = request.server.app.ctx;
      const jobId = request.params.jobId as string;
      const { fileKey, createdAt, type } = await jobFileKey(ctx, tenantOf(request).storeId, jobId);
      const file = await storageFor(ctx).get(fileKey);
      // Personal data in bulk leaves the store here: recorded before the first byte goes out.
      await recordBulkRead(ctx, { action: 'export.downloaded', resourceType: 'job', resourceId: jobId, details: { type } });
      // `customers.export` -> customers-….csv, `products.export` -> products-….csv, `audit.export` -> audit-log-….csv
      const name = `${type === 'audit.export' ? 'audit-log' : type.split('.')[0]}-${createdAt.toISOString().slice(0, 10)}.csv`;
      return h
        .response(file.body)
        .type('text/csv; charset=utf-8')
        .bytes(file.size)
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('cache-control', 'private, no-store');
    }
  }
});
