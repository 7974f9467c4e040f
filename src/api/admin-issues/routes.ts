import Joi from 'joi';
import { listIssues, resolveIssue } from '../../services/issues/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { issueListResponse, issueResponse } from './schemas.js';

export const listIssuesRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/issues',
  options: {
    description: 'Operational issues (DNS, sync, import, email, webhooks, low stock), most recently seen first (then id): ?status=open (default) or resolved',
    tags: ['issues'],
    validate: { query: Joi.object({ ...paginationQuery, status: Joi.string().valid('open', 'resolved').default('open') }) },
    response: { status: { 200: issueListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; status: 'open' | 'resolved' }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, status } = query;
      const result = await listIssues(ctx, storeId, { status }, { limit, cursor });
      return withMeta({ issues: result.issues }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const resolveIssueRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/issues/{issueId}/resolve',
  options: {
    description: 'Mark an issue resolved; the same problem happening again opens a new issue',
    tags: ['issues'],
    validate: { params: idParams('issueId') },
    response: { status: { 200: issueResponse } },
    handler: adminHandler<{ issueId: string }>(({ ctx, storeId, params }) => resolveIssue(ctx, storeId, params.issueId))
  }
});
