import { sealAuditLog } from '../../src/services/audit/index.js';
import type { TestApp } from './app.js';

/**
 * Seals the store's pending audit entries: entries are written pending and sealed into the chain a
 * moment after their change (src/services/audit/seal.ts); a test that reads audit_log itself seals
 * first, as the API's readers do.
 */
export async function sealAudit(app: TestApp, storeId: string): Promise<void> {
  await sealAuditLog(app.ctx, storeId);
}
