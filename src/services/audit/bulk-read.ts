import type { AppContext } from '../../context.js';
import { withTransaction } from '../with-transaction.js';
import { recordAudit, type AuditEntryInput } from './record.js';

/**
 * A read that hands out personal data in bulk (an export's download, an audience sample): nothing
 * changes, so the entry has its own transaction, written before the data is handed out (no entry, no data).
 */
export async function recordBulkRead(ctx: AppContext, entry: AuditEntryInput): Promise<void> {
  await withTransaction(ctx, (trx) => recordAudit(ctx, trx, entry));
}
