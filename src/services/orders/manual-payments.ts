import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { reactInTransaction, type EmitEvent } from '../../platform/events/domain-events.js';
import type { Transaction } from '../../db/transaction.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { applyFigureChange } from './order-figures.js';
import { loadOrder } from './orders.js';
import { moveOrderPayment } from './payment-moves.js';
import { restockOrderLines } from './restock.js';
import { recordOrderEvent, SYSTEM, type Actor } from './timeline.js';
import { withTransaction } from '../../platform/with-transaction.js';

/**
 * An order the schedule may cancel: manual payment still pending, nothing shipped (a shipped order
 * is the merchant's to chase: cash on delivery is paid after it leaves), older than the store's
 * `manualPaymentDays`. Stated in SQL once, on `orders o` joined with `stores s`; the partial index
 * `orders_unpaid_manual_idx` holds exactly the orders of the first four conditions.
 */
const OVERDUE = `o.payment_provider = 'manual' and o.payment_status = 'pending' and o.status = 'open' and o.fulfillment_status = 'unfulfilled'
  and o.created_at < now() - make_interval(days => s.manual_payment_days)`;

/**
 * Unpaid manual-payment orders past their store's deadline, oldest first (`batch` of them). The
 * schedule (src/use-cases/cancel-unpaid-orders.ts) cancels each with `cancelOverdueOrderRow`.
 */
export async function overdueManualOrders(ctx: AppContext, batch: number): Promise<Array<{ id: string; storeId: string }>> {
  // Every store's deadline is at least a day: older orders only, so the index range stays short.
  return (
    await ctx.db.raw(
      `select o.id, o.store_id from orders o join stores s on s.id = o.store_id
        where ${OVERDUE} and o.created_at < now() - interval '1 day'
        order by o.created_at limit ?`,
      [batch]
    )
  ).rows as Array<{ id: string; storeId: string }>;
}

/**
 * Orders' side of cancelling one unpaid manual-payment order if it is (still) overdue: the order
 * becomes `cancelled` with payment `failed` (it leaves the revenue figures, like a failed payment),
 * its units go back onto the variants' current stock (ledger rows say why) and the timeline says
 * so. The caller locked the variants of `items` first, in id order (the lock order of every stock
 * move); the order row's UPDATE re-checks every condition, so a concurrent payment, shipment or
 * second run finds nothing to do (null). Returns the cancelled order and the reason its email gives.
 */
export async function cancelOverdueOrderRow(
  trx: Transaction,
  emit: EmitEvent,
  storeId: string,
  orderId: string,
  items: OrderItemRow[]
): Promise<{ order: OrderRow; reason: string } | null> {
  const before = (await trx('orders').where({ id: orderId, storeId }).first()) as OrderRow | undefined;
  const cancelled = await trx.raw(
    `update orders o set status = 'cancelled', payment_status = 'failed', cancelled_at = now(), cancel_reason = 'unpaid', updated_at = now() from stores s
      where o.id = ? and o.store_id = ? and s.id = o.store_id and ${OVERDUE}
      returning o.*, s.manual_payment_days`,
    [orderId, storeId]
  );
  const order = cancelled.rows[0] as (OrderRow & { manualPaymentDays: number }) | undefined;
  if (!order || !before) return null;
  await applyFigureChange(trx, order, before, order);

  // Through the capped path like every restock, though an unpaid order had no refund to put units back before.
  const { backInStock, restockedQuantity } = await restockOrderLines(
    trx,
    storeId,
    orderId,
    items.map((item) => ({ orderItemId: item.id, quantity: item.quantity })),
    { reason: `order #${order.number} cancelled unpaid`, code: 'cancel' }
  );
  if (backInStock.length) emit({ type: 'inventory.changed', storeId, variantIds: backInStock });

  const days = order.manualPaymentDays;
  const reason = `we did not receive its payment within ${days} day${days === 1 ? '' : 's'}`;
  await recordOrderEvent(trx, storeId, orderId, 'cancelled', SYSTEM, { reason, restocked: true, restockedQuantity, refunded: 0 });
  emit({ type: 'order.changed', storeId, orderId, change: 'cancelled' });
  return { order, reason };
}

/** The units of each variant in these items (deleted variants left out). */
export function unitsOf(items: Array<Pick<OrderItemRow, 'variantId' | 'quantity'>>): Map<string, number> {
  const units = new Map<string, number>();
  for (const item of items) if (item.variantId) units.set(item.variantId, (units.get(item.variantId) ?? 0) + item.quantity);
  return units;
}

/**
 * The merchant collected a manual payment: the pending order becomes `paid` through the payment
 * state machine (so it is no longer cancelled when its deadline passes, and its buyer may review),
 * with the reference and note on the timeline. 409 for a Stripe order (Stripe reports its
 * payments), an order already paid (or refunded), and a cancelled one.
 */
export async function markOrderPaid(ctx: AppContext, storeId: string, orderId: string, input: { reference?: string; note?: string }, actor: Actor) {
  await withTransaction(ctx, async (trx) => {
    const order = (await trx('orders').where({ id: orderId, storeId }).forUpdate().first('status', 'paymentStatus', 'paymentProvider')) as
      | Pick<OrderRow, 'status' | 'paymentStatus' | 'paymentProvider'>
      | undefined;
    if (!order) throw notFound('Order');
    const refuse = (message: string, detail: string) => conflict('conflict', message, [{ path: 'orderId', message: detail }]);
    if (order.paymentProvider !== 'manual') throw refuse('Stripe reports the payments of this order: it cannot be marked paid', `payment provider is ${order.paymentProvider}`);
    if (order.status === 'cancelled') throw refuse('This order is cancelled: its payment can no longer be recorded', 'order is cancelled');
    if (order.paymentStatus !== 'pending') throw refuse(`This order's payment is already ${order.paymentStatus}`, `payment is ${order.paymentStatus}`);
    await moveOrderPayment(trx, storeId, orderId, { state: 'paid' }, { actor }, { reference: input.reference ?? null, note: input.note ?? null });
    await reactInTransaction(ctx, trx, [{ type: 'order.changed', storeId, orderId, change: 'paid' }]);
  });
  return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}
