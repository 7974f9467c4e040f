/**
 * The face of module audit: the append-only, hash-chained audit log of each store (entries are
 * written pending in their change's transaction and sealed into the chain right after: seal.ts).
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { auditModule } from './module.js';
export { recordAudit, recordAudits, type AuditEntryInput, type AuditOrigin } from './record.js';
export { recordBulkRead } from './bulk-read.js';
export { runWithAuditRequest, currentAuditRequest, type AuditActor, type AuditRequest, type PendingAuditEntry } from './context.js';
export { auditQuery, chainedFields, listAuditLog, toAuditDto, verifyAuditLog, type AuditFilter } from './read.js';
export { purgeExpiredAuditEntries } from './retention.js';
export { scheduledSealsDone, sealAllPending, sealAuditLog } from './seal.js';
export { entryHash, GENESIS_HASH } from './chain.js';
