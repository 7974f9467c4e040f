import { auditExportJob } from '../../jobs/audit-export.js';
import { runAuditExport } from '../../services/audit/export.js';
import { trackedProcessor } from './tracked.js';

export const auditExportProcessor = trackedProcessor(auditExportJob, (ctx, jobId) => runAuditExport(ctx, jobId));
