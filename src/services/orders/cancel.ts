import { recordAudit } from '../audit/index.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import type { EmitEvent } from '../../platform/events/domain-events.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { voidBalanceInvoices } from '../draft-orders/index.js';
import { applyFigureChange } from './order-figures.js';
import { moveOrderPayment } from './payment-moves.js';
import type { Actor } from './timeline.js';

/*
 * The orders module's part of a cancel: the order's own rows. The cancel itself (money, stock,
 * the discount's use, the email) is a use case: src/use-cases/cancel-order.ts.
 */

export interface CancelInput {
  reason: string;
  restock?: boolean;
  refund?: boolean;
  notifyCustomer?: boolean;
}

export const orderFulfilled = () =>
  conflict('order_fulfilled', 'Items of this order were fulfilled: it cannot be cancelled; take the items back with a return', [
    { path: 'orderId', message: 'order has fulfilled items' }
  ]);

/** The order as it is (404 when there is none). */
export async function findOrder(ctx: AppContext, storeId: string, orderId: string): Promise<OrderRow> {
  const current = (await ctx.db('orders').where({ storeId, id: orderId }).first()) as OrderRow | undefined;
  if (!current) throw notFound('Order');
  return current;
}

/** The order's lines, in position order. */
export async function orderItemsOf(db: Sql, storeId: string, orderId: string): Promise<OrderItemRow[]> {
  return (await db('orderItems').where({ orderId, storeId }).orderBy('position')) as OrderItemRow[];
}

/**
 * The order cancelled, under its row lock (the caller locked the variants first: the lock order
 * of every stock move): re-checked, an unpaid payment voided, revenue and the customer's figures
 * net of it, `order.changed` emitted. Null when it was cancelled meanwhile; 409 when items were
 * fulfilled meanwhile.
 */
export async function markOrderCancelled(
  trx: Transaction,
  emit: EmitEvent,
  storeId: string,
  orderId: string,
  reason: string,
  actor: Actor
): Promise<{ before: OrderRow; order: OrderRow } | null> {
  const before = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first()) as OrderRow;
  if (before.status === 'cancelled') return null;
  if (before.fulfillmentStatus !== 'unfulfilled') throw orderFulfilled();
  const voidable = before.paymentStatus === 'pending' || before.paymentStatus === 'authorized' || before.paymentStatus === 'failed';
  if (voidable) await moveOrderPayment(trx, storeId, orderId, { state: 'voided' }, { actor }, { reason });
  const afterPayment = (await trx('orders').where({ storeId, id: orderId }).first()) as OrderRow;
  const [order] = (await trx('orders')
    .where({ storeId, id: orderId })
    .update({ status: 'cancelled', cancelledAt: trx.fn.now(), cancelReason: reason, updatedAt: trx.fn.now() })
    .returning('*')) as OrderRow[];
  await applyFigureChange(trx, before, afterPayment, order!);
  // An unpaid balance link of an edit asks no more (a payment made anyway is refunded in full).
  await voidBalanceInvoices(trx, storeId, orderId);
  emit({ type: 'order.changed', storeId, orderId, change: 'cancelled' });
  return { before, order: order! };
}
