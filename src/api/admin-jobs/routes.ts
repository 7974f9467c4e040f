import Joi from 'joi';
import { getJob, jobFileKey, listJobs } from '../../services/job-history/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { recordBulkRead } from '../../services/audit/index.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { assertMayReadResult, jobForCaller } from './result-access.js';
import { JOB_RESULT_SCOPE_NOTE, JOB_RESULT_SCOPES_TEXT, jobListResponse, jobResponse } from './schemas.js';

type JobParams = { jobId: string };

export const listJobsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs',
  options: {
    description: `List background jobs of the store (newest first), e.g. ?type=customers.import; each result is a summary (lists replaced by <name>Count); GET /admin/jobs/{jobId} has the full result. ${JOB_RESULT_SCOPE_NOTE}`,
    tags: ['jobs'],
    validate: { query: Joi.object({ ...paginationQuery, type: Joi.string().trim().max(100) }) },
    response: { status: { 200: jobListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; type?: string }>(async ({ ctx, storeId, actor, query }) => {
      const { limit, cursor, type } = query;
      const result = await listJobs(ctx, storeId, { type }, { limit, cursor });
      return withMeta({ jobs: result.jobs.map((job) => jobForCaller(actor, job)) }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const getJobRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}',
  options: {
    description: `A job: status (queued/active/completed/failed), progress, result, error. ${JOB_RESULT_SCOPE_NOTE}`,
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    response: { status: { 200: jobResponse } },
    handler: adminHandler<JobParams>(async ({ ctx, storeId, actor, params }) => ({ job: jobForCaller(actor, await getJob(ctx, storeId, params.jobId)) }))
  }
});

export const downloadJobFileRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}/download',
  options: {
    description: `A completed export job's file (text/csv); 409 while the export is queued, active or failed; 404 for other jobs. The file is the job's result: an API key also needs the scope of its data (${JOB_RESULT_SCOPES_TEXT}), else 403 insufficient_scope`,
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
    handler: adminHandler<JobParams>(async ({ ctx, storeId, actor, params, h }) => {
      const { jobId } = params;
      // Before the file's state: a key without the data's scope learns nothing more about it.
      assertMayReadResult(actor, (await getJob(ctx, storeId, jobId)).type);
      const { fileKey, createdAt, type } = await jobFileKey(ctx, storeId, jobId);
      const file = await ctx.storage.get(fileKey);
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
    })
  }
});
