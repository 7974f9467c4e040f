import type { AppContext } from '../context.js';
import { lockVariants } from '../services/catalog/index.js';
import {
  closeReturnRow,
  findReturn,
  loadOrder,
  markReturnReceived,
  returnVariantIds,
  toReturnDto,
  type Actor,
  type ReturnLine
} from '../services/orders/index.js';
import { withTransaction } from '../platform/with-transaction.js';
import { refundOrder } from './refund-order.js';

/**
 * The parcel came back: the received lines (default: all requested) go back on the shelf when
 * `restock` (each line capped at what a refund has not put back already); with `refund`, the
 * received items are refunded in the same request (a refund like any other, linked to the return)
 * and the return is closed. A return not `requested` is 409. The catalog's variants are locked
 * first (the lock order of every stock move), then orders receives the return under the order lock.
 */
export async function receiveReturn(
  ctx: AppContext,
  storeId: string,
  returnId: string,
  input: { items?: ReturnLine[]; restock?: boolean; refund?: boolean; notifyCustomer?: boolean },
  actor: Actor
) {
  const restock = input.restock ?? true;
  const found = await findReturn(ctx, storeId, returnId);
  const variantIds = restock ? await returnVariantIds(ctx.db, storeId, found) : [];
  const received = await withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, variantIds);
    return markReturnReceived(trx, emit, storeId, found, { ...(input.items ? { items: input.items } : {}), restock }, actor);
  });
  let row = received;
  if (input.refund && received.receivedItems?.length) {
    const { refund } = await refundOrder(
      ctx,
      storeId,
      found.orderId,
      { items: received.receivedItems.map((line) => ({ ...line, restock: false })), reason: `return: ${found.reason}`, notifyCustomer: input.notifyCustomer ?? true },
      actor,
      { returnId }
    );
    row = await closeReturnRow(ctx, storeId, returnId, actor, refund.id);
  }
  return { return: toReturnDto(row), order: (await loadOrder(ctx, ctx.db, storeId, found.orderId)).dto };
}
