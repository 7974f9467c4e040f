import { auditRetentionJob } from '../../jobs/audit-retention.js';
import { purgeExpiredAuditEntries } from '../../services/audit/retention.js';
import { processorOf } from '../processor.js';

export const auditRetentionProcessor = processorOf(auditRetentionJob, (ctx) => purgeExpiredAuditEntries(ctx));
