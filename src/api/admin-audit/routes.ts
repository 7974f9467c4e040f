import { startAuditExport } from '../../use-cases/audit-export.js';
import { listAuditLog, verifyAuditLog, type AuditFilter } from '../../services/audit/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { jobResponse } from '../admin-jobs/schemas.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { auditExportPayload, auditListQuery, auditListResponse, auditVerifyResponse } from './schemas.js';

export const listAuditLogRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/audit-log',
  options: {
    description: 'The audit log, newest first, filtered by actor, action, resource (type, id) and time (since ≤ createdAt < until)',
    tags: ['audit'],
    validate: { query: auditListQuery },
    response: { status: { 200: auditListResponse } },
    handler: adminHandler<{}, undefined, AuditFilter & { limit: number; cursor?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, ...filter } = query;
      const result = await listAuditLog(ctx, storeId, filter, { limit, cursor });
      return withMeta({ entries: result.entries }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const verifyAuditLogRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/audit-log/verify',
  options: {
    description: "Checks the store's hash chain from its oldest kept entry (its prev hash is the trusted anchor): { valid, checked, anchor, firstBroken }",
    tags: ['audit'],
    response: { status: { 200: auditVerifyResponse } },
    handler: adminHandler(({ ctx, storeId }) => verifyAuditLog(ctx, storeId))
  }
});

export const exportAuditLogRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/audit-log/export',
  options: {
    description: 'Export the (filtered) audit log to CSV in a worker: 202 { job }; download with GET /admin/jobs/{jobId}/download once completed',
    tags: ['audit'],
    validate: { payload: auditExportPayload },
    response: { status: { 202: jobResponse } },
    handler: adminHandler<{}, Record<string, unknown> | null>(async ({ ctx, actor, payload, h }) => {
      const job = await startAuditExport(ctx, actor, payload ?? {});
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    })
  }
});
