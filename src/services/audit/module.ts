import type { Module } from '../../context.js';
import { auditBeforeCommit } from './record.js';

/**
 * The audit log: owns audit_log (append-only; a trigger refuses UPDATE and DELETE except in the
 * retention purge's transaction, see migration 20261126180000). The others write entries through
 * recordAudit inside their own transactions; `beforeCommit` appends them to the chain last thing
 * before COMMIT and, for an admin request whose services record none, writes its generic entry in
 * the transaction that made the change.
 */
export const auditModule: Module = { name: 'audit', beforeCommit: auditBeforeCommit };
