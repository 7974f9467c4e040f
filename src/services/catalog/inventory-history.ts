import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../pagination.js';

export interface LedgerEntryRow {
  id: string;
  variantId: string;
  delta: number;
  quantityAfter: number;
  reasonCode: string;
  reason: string | null;
  actor: string;
  userId: string | null;
  orderId: string | null;
  jobId: string | null;
  reference: string | null;
  createdAt: Date;
}

/**
 * A product's stock moves, newest first, one page at a time (keyset on the ledger's history
 * index): what moved, why (`reason`: sale, cancel, refund, return, manual, import, bulk, sync),
 * who (`actor`, the user), what caused it (order, job, checkout) and the stock after. Archived
 * variants' moves are included; `variantId` narrows to one variant.
 */
export async function inventoryHistory(ctx: AppContext, storeId: string, productId: string, filters: { variantId?: string }, page: PageRequest) {
  const product = await ctx.db('products').where({ storeId, id: productId }).first('id');
  if (!product) throw notFound('Product');
  const query = ctx.db('inventoryLedger as l')
    .where('l.storeId', storeId)
    .whereIn('l.variantId', ctx.db('productVariants').where({ storeId, productId }).select('id'))
    .select('l.id', 'l.variantId', 'l.delta', 'l.quantityAfter', 'l.reasonCode', 'l.reason', 'l.actor', 'l.userId', 'l.orderId', 'l.jobId', 'l.reference', 'l.createdAt');
  if (filters.variantId) query.where('l.variantId', filters.variantId);
  const result = await keysetPage<LedgerEntryRow>(query, { column: 'l.createdAt', direction: 'desc', tieBreaker: 'l.id' }, page);
  return {
    entries: result.items.map((row) => ({
      id: row.id,
      variantId: row.variantId,
      delta: row.delta,
      quantityAfter: row.quantityAfter,
      reason: row.reasonCode,
      note: row.reason,
      actor: { type: row.actor, userId: row.userId },
      orderId: row.orderId,
      jobId: row.jobId,
      reference: row.reference,
      createdAt: row.createdAt
    })),
    nextCursor: result.nextCursor
  };
}
