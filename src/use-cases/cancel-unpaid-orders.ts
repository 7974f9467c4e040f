import type { AppContext } from '../context.js';
import { withTransaction } from '../platform/with-transaction.js';
import { lockVariants } from '../services/catalog/index.js';
import { enqueueEmail } from '../services/email/index.js';
import {
  cancelOverdueOrderRow,
  orderCancelledEmail,
  orderItemsOf,
  orderMailStore,
  overdueManualOrders,
  recordOrderEvent,
  SYSTEM,
  trackingUrlFor,
  unitsOf
} from '../services/orders/index.js';

/**
 * Scheduled: unpaid manual-payment orders past their store's deadline are cancelled, one
 * transaction each (cancelOverdueOrder). Safe to retry or to run twice at once: each order's
 * cancel re-checks it under its row lock, so it happens (with its stock and its email) once.
 */
export async function cancelOverdueManualOrders(ctx: AppContext, signal?: AbortSignal, batch = 100): Promise<{ cancelled: number }> {
  let cancelled = 0;
  const seen = new Set<string>();
  while (!signal?.aborted) {
    const due = await overdueManualOrders(ctx, batch);
    const fresh = due.filter((row) => !seen.has(row.id));
    if (fresh.length === 0) break;
    for (const row of fresh) {
      seen.add(row.id);
      if (signal?.aborted) break;
      if (await cancelOverdueOrder(ctx, row.storeId, row.id)) cancelled += 1;
    }
    if (due.length < batch) break;
  }
  return { cancelled };
}

/**
 * Cancels one unpaid manual-payment order if it is (still) overdue, in one transaction: catalog's
 * variants locked first, in id order (the lock order of every stock move), then orders cancels the
 * order, puts its units back and writes its timeline (cancelOverdueOrderRow, which re-checks every
 * condition under the row's lock), and the `order_cancelled` email joins the same transaction
 * through the outbox. Returns whether it cancelled.
 */
export async function cancelOverdueOrder(ctx: AppContext, storeId: string, orderId: string): Promise<boolean> {
  // Read before the transaction: a cache miss must not wait for a second pool connection while this one is held.
  const store = await orderMailStore(ctx, storeId);
  return withTransaction(ctx, async (trx, emit) => {
    const items = await orderItemsOf(trx, storeId, orderId);
    await lockVariants(trx, storeId, [...unitsOf(items).keys()]);
    const cancelled = await cancelOverdueOrderRow(trx, emit, storeId, orderId, items);
    if (!cancelled) return false;
    const { order, reason } = cancelled;
    await enqueueEmail(ctx, orderCancelledEmail(store.name, order, items, trackingUrlFor(store.trackingBase, order.trackingToken), reason), { trx });
    await recordOrderEvent(trx, storeId, orderId, 'email_sent', SYSTEM, { template: 'order_cancelled', to: order.email });
    return true;
  });
}
