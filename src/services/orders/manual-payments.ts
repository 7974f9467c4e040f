import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { availabilityFlipped } from '../checkout/reservations.js';
import { enqueueEmail } from '../email/outbox.js';
import { transactionWithEvents } from '../events/domain-events.js';
import { subtractRevenue } from './create-order.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { orderCancelledEmail } from './notifications.js';
import { loadOrder } from './orders.js';
import { orderMailStore, trackingUrlFor } from './tracking-url.js';

/**
 * An order the schedule may cancel: manual payment still pending, nothing shipped (a shipped order
 * is the merchant's to chase: cash on delivery is paid after it leaves), older than the store's
 * `manualPaymentDays`. Stated in SQL once, on `orders o` joined with `stores s`; the partial index
 * `orders_unpaid_manual_idx` holds exactly the orders of the first four conditions.
 */
const OVERDUE = `o.payment_provider = 'manual' and o.payment_status = 'pending' and o.status = 'open' and o.fulfillment_status = 'unfulfilled'
  and o.created_at < now() - make_interval(days => s.manual_payment_days)`;

/**
 * Scheduled: unpaid manual-payment orders past their store's deadline are cancelled, one
 * transaction each (cancelOverdueOrder). Safe to retry or to run twice at once: each order's
 * cancel re-checks it under its row lock, so it happens (with its stock and its email) once.
 */
export async function cancelOverdueManualOrders(ctx: AppContext, signal?: AbortSignal, batch = 100): Promise<{ cancelled: number }> {
  let cancelled = 0;
  const seen = new Set<string>();
  while (!signal?.aborted) {
    // Every store's deadline is at least a day: older orders only, so the index range stays short.
    const due = (
      await ctx.db.raw(
        `select o.id, o.store_id from orders o join stores s on s.id = o.store_id
          where ${OVERDUE} and o.created_at < now() - interval '1 day'
          order by o.created_at limit ?`,
        [batch]
      )
    ).rows as Array<{ id: string; storeId: string }>;
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
 * Cancels one unpaid manual-payment order if it is (still) overdue: the order becomes `cancelled`
 * with payment `failed` (it leaves the revenue figures, like a failed payment), its units go back
 * onto the variants' current stock (ledger rows say why), and the `order_cancelled` email joins
 * the same transaction through the outbox. The variants are locked first, in id order (the lock
 * order of every stock move), then the order row, whose UPDATE re-checks every condition: a
 * concurrent payment, shipment or second run finds nothing to do. Returns whether it cancelled.
 */
export async function cancelOverdueOrder(ctx: AppContext, storeId: string, orderId: string): Promise<boolean> {
  // Read before the transaction: a cache miss must not wait for a second pool connection while this one is held.
  const store = await orderMailStore(ctx, storeId);
  return transactionWithEvents(ctx, async (trx, emit) => {
    const items = (await trx('orderItems').where({ orderId, storeId }).orderBy('position')) as OrderItemRow[];
    const units = new Map<string, number>();
    for (const item of items) if (item.variantId) units.set(item.variantId, (units.get(item.variantId) ?? 0) + item.quantity);
    const variantIds = [...units.keys()].sort();
    if (variantIds.length) await trx.raw('select id from product_variants where id = any(?::uuid[]) and store_id = ? order by id for update', [variantIds, storeId]);

    const cancelled = await trx.raw(
      `update orders o set status = 'cancelled', payment_status = 'failed', updated_at = now() from stores s
        where o.id = ? and o.store_id = ? and s.id = o.store_id and ${OVERDUE}
        returning o.*, s.manual_payment_days`,
      [orderId, storeId]
    );
    const order = cancelled.rows[0] as (OrderRow & { manualPaymentDays: number }) | undefined;
    if (!order) return false;
    await subtractRevenue(trx, storeId, order.createdAt, Number(order.total));

    const backInStock: string[] = [];
    const ledger: Record<string, unknown>[] = [];
    for (const variantId of variantIds) {
      const quantity = units.get(variantId)!;
      // Onto the stock as it is now: whatever was counted or sold since the order stands.
      const result = await trx.raw(
        'update product_variants set inventory_quantity = inventory_quantity + ?, updated_at = now() where id = ? and store_id = ? returning inventory_quantity, inventory_policy',
        [quantity, variantId, storeId]
      );
      const row = result.rows[0] as { inventoryQuantity: number; inventoryPolicy: string } | undefined;
      if (!row) continue;
      if (availabilityFlipped(row.inventoryPolicy, row.inventoryQuantity - quantity, row.inventoryQuantity)) backInStock.push(variantId);
      ledger.push({ storeId, variantId, delta: quantity, reason: `order #${order.number} cancelled unpaid`, quantityAfter: row.inventoryQuantity });
    }
    if (ledger.length) await trx('inventoryLedger').insert(ledger);
    if (backInStock.length) emit({ type: 'inventory.changed', storeId, variantIds: backInStock });

    const days = order.manualPaymentDays;
    const reason = `we did not receive its payment within ${days} day${days === 1 ? '' : 's'}`;
    await enqueueEmail(ctx, orderCancelledEmail(store.name, order, items, trackingUrlFor(store.trackingBase, order.trackingToken), reason), { trx });
    return true;
  });
}

/**
 * The merchant collected a manual payment: the pending order becomes `paid` (so it is no longer
 * cancelled when its deadline passes, and its buyer may review). Paying an order already paid
 * changes nothing; a cancelled, failed or refunded one is a 409.
 */
export async function markOrderPaid(ctx: AppContext, storeId: string, orderId: string) {
  const updated = await ctx.db('orders')
    .where({ id: orderId, storeId, paymentStatus: 'pending' })
    .whereNot({ status: 'cancelled' })
    .update({ paymentStatus: 'paid', updatedAt: ctx.db.fn.now() })
    .returning('id');
  if (updated.length === 0) {
    const order = (await ctx.db('orders').where({ id: orderId, storeId }).first('status', 'paymentStatus')) as Pick<OrderRow, 'status' | 'paymentStatus'> | undefined;
    if (!order) throw notFound('Order');
    if (order.paymentStatus !== 'paid') {
      const state = order.status === 'cancelled' ? 'cancelled' : `payment ${order.paymentStatus}`;
      throw conflict('conflict', `This order is ${state}: its payment can no longer be recorded`, [{ path: 'orderId', message: `order is ${state}` }]);
    }
  }
  return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}
