import type { AppContext } from '../../context.js';
import { auditExportJob } from '../../jobs/audit-export.js';
import { createJob } from '../job-history/job-runs.js';
import type { Tenant } from '../roles.js';
import { withTransaction } from '../with-transaction.js';
import { AUDIT_EXPORT_JOB_TYPE } from './export.js';
import { recordAudit } from './record.js';

/** Queues an audit CSV export; the request is itself an entry (`audit_log.exported`), in the job's transaction. */
export async function startAuditExport(ctx: AppContext, tenant: Tenant, filter: Record<string, unknown>) {
  const input = Object.fromEntries(Object.entries(filter).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]));
  return withTransaction(ctx, async (trx) => {
    const job = await createJob(ctx, { storeId: tenant.storeId, type: AUDIT_EXPORT_JOB_TYPE, kind: auditExportJob, createdBy: tenant.userId, input }, trx);
    await recordAudit(ctx, trx, { action: 'audit_log.exported', resourceType: 'job', resourceId: job.id, details: { filter: input } });
    return job;
  });
}
