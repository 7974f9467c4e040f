import type { Module } from '../../context.js';
import { auditBeforeCommit } from './record.js';

/**
 * The audit log: owns audit_log and audit_pending (append-only; triggers refuse UPDATE and DELETE
 * except in the retention purge's and the seal's transactions, see migrations 20261126180000 and
 * 20261128040000, 20261130040000). The others write entries through recordAudit inside their own transactions;
 * `beforeCommit` hands back their insert into audit_pending, sent with the COMMIT (sealed into the chain after it) and,
 * for an admin request whose services record none, writes its generic entry in the transaction that
 * made the change.
 */
export const auditModule: Module = { name: 'audit', beforeCommit: auditBeforeCommit };
