import type { Module } from '../../context.js';

/**
 * The audit log: owns audit_log (append-only; a trigger refuses UPDATE and DELETE except in the
 * retention purge's transaction, see migration 20261126180000). Contributes nothing to the others;
 * they write entries through recordAudit inside their own transactions.
 */
export const auditModule: Module = { name: 'audit' };
