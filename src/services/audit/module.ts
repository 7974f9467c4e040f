import type { Module } from '../../context.js';
import { recordPendingAudit } from './record.js';

/**
 * The audit log: owns audit_log (append-only; a trigger refuses UPDATE and DELETE except in the
 * retention purge's transaction, see migration 20261126180000). The others write entries through
 * recordAudit inside their own transactions; for an admin request whose services record none,
 * `beforeCommit` writes its generic entry in the transaction that made the change.
 */
export const auditModule: Module = { name: 'audit', beforeCommit: recordPendingAudit };
