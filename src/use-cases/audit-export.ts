import { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { auditExportJob } from '../jobs/audit-export.js';
import { csvLine } from '../platform/csv/format.js';
import type { Tenant } from '../platform/roles.js';
import { withTransaction } from '../platform/with-transaction.js';
import { auditQuery, recordAudit, sealAuditLog, toAuditDto, type AuditFilter } from '../services/audit/index.js';
import { completeJob, createJob, findJobRow, reportJobProgress } from '../services/job-history/index.js';

/*
 * The audit log's CSV export spans two modules (audit's entries, job-history's tracked job), so it
 * is a use case above both: the audit module itself depends on no other module, which keeps it
 * importable from every module that records entries.
 */

export const AUDIT_EXPORT_JOB_TYPE = auditExportJob.type;
const PAGE_SIZE = 2_000;
const HEADER = ['seq', 'created_at', 'actor_type', 'actor_user_id', 'actor_api_key_id', 'actor_email', 'action', 'resource_type', 'resource_id', 'changes', 'request_id', 'ip', 'user_agent', 'hash'];

/** The job's input: the list's filters, dates as ISO strings. */
export interface AuditExportInput {
  actor?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: string;
  until?: string;
}

/**
 * The audit export job: the filtered entries, newest first, as CSV (cells formula-guarded like the
 * customer export's) into storage; downloaded with GET /admin/jobs/{jobId}/download.
 */
export async function runAuditExport(ctx: AppContext, jobId: string): Promise<{ rows: number; bytes: number }> {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`audit export job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result as unknown as { rows: number; bytes: number };
  const storeId = job.storeId;
  const input = (job.input ?? {}) as AuditExportInput;
  const filter: AuditFilter = { ...input, since: input.since ? new Date(input.since) : undefined, until: input.until ? new Date(input.until) : undefined };
  const key = `exports/${storeId}/${jobId}.csv`;
  // The export holds every entry committed before it ran, the export request's own included.
  await sealAuditLog(ctx, storeId);
  let rows = 0;
  let bytes = 0;
  async function* csv(): AsyncGenerator<string> {
    const header = csvLine(HEADER);
    bytes += Buffer.byteLength(header);
    yield header;
    let before: number | null = null;
    for (;;) {
      const query = auditQuery(ctx.db, storeId, filter).limit(PAGE_SIZE);
      if (before !== null) query.where('a.seq', '<', before);
      const page: Array<Record<string, unknown>> = await query;
      if (page.length === 0) return;
      let chunk = '';
      for (const row of page) {
        const entry = toAuditDto(row);
        chunk += csvLine([entry.seq, entry.createdAt, entry.actor.type, entry.actor.userId, entry.actor.apiKeyId, entry.actor.email, entry.action, entry.resource.type, entry.resource.id, entry.changes === null ? null : JSON.stringify(entry.changes), entry.requestId, entry.ip, entry.userAgent, entry.hash]);
      }
      bytes += Buffer.byteLength(chunk);
      yield chunk;
      rows += page.length;
      before = Number(page[page.length - 1]!.seq);
      await reportJobProgress(ctx, jobId, { percent: 99, processedRows: rows });
      if (page.length < PAGE_SIZE) return;
    }
  }
  await ctx.storage.put(key, Readable.from(csv()), { contentType: 'text/csv' });
  const result = { rows, bytes, fileName: `audit-log-${new Date().toISOString().slice(0, 10)}.csv` };
  await completeJob(ctx, jobId, result, key);
  return result;
}

/** Queues an audit CSV export; the request is itself an entry (`audit_log.exported`), in the job's transaction. */
export async function startAuditExport(ctx: AppContext, tenant: Tenant, filter: Record<string, unknown>) {
  const input = Object.fromEntries(Object.entries(filter).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]));
  return withTransaction(ctx, async (trx) => {
    const job = await createJob(ctx, { storeId: tenant.storeId, kind: auditExportJob, createdBy: tenant.userId, input }, trx);
    await recordAudit(ctx, trx, { action: 'audit_log.exported', resourceType: 'job', resourceId: job.id, details: { filter: input } });
    return job;
  });
}
