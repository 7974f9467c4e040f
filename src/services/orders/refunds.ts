import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { type EmitEvent } from '../../platform/events/domain-events.js';
import type { OrderItemRow, OrderRow, RefundRow } from './dto.js';
import { toRefundDto } from './dto.js';
import { loadOrder } from './orders.js';
import { moveOrderPayment } from './payment-moves.js';
import { allocateRefund } from './refund-payments.js';
import { refundsRefusedOf } from './disputes.js';
import { restockOrderLines } from './restock.js';
import { calculateRefund, notRefundable, REFUNDABLE_STATES, refundableOf, type CommittedRefunds, type RefundCalculation, type RefundInput } from './refund-amounts.js';
import { uncollectedOf } from '../draft-orders/index.js';
import { recordOrderEvent, type Actor } from './timeline.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { readTogether, type Sql, type Transaction } from '../../db/transaction.js';

/**
 * Orders' side of a refund: its rows (`order_refunds`, the items' refunded and restocked units),
 * the order's payment and timeline. The workflow around them (the variants locked first, Stripe
 * asked, the email, the audit entry) is the use case src/use-cases/refund-order.ts.
 */

/** What the order's refunds hold (not failed ones): in flight, of shipping, of tax. */
export async function refundSums(db: Sql, storeId: string, orderId: string): Promise<{ pending: number; shippingRefunded: number; taxRefunded: number }> {
  const row = (await db('orderRefunds')
    .where({ storeId, orderId })
    .whereNot({ status: 'failed' })
    .first(
      db.raw(`coalesce(sum(amount) filter (where status = 'pending'), 0) as pending`),
      db.raw('coalesce(sum(shipping), 0) as shipping_refunded'),
      // An edit's refund gave back tax the order's lines no longer carry (their tax was lowered with the total): not counted again.
      db.raw(`coalesce(sum(tax_amount) filter (where source <> 'edit'), 0) as tax_refunded`)
    )) as { pending: string; shippingRefunded: string; taxRefunded: string };
  return { pending: Number(row.pending), shippingRefunded: Number(row.shippingRefunded), taxRefunded: Number(row.taxRefunded) };
}

/**
 * What is not free to refund of the order: what refunds hold (refundSums), what its total holds
 * that was never collected (a balance link open or voided), and whether an open dispute refuses
 * refunds (what a lost one took back is the order's `amountChargedBack`).
 */
export async function committedRefunds(db: Sql, storeId: string, orderId: string): Promise<CommittedRefunds> {
  const [sums, uncollected, refundsRefused] = await readTogether(db, [() => refundSums(db, storeId, orderId), () => uncollectedOf(db, storeId, orderId), () => refundsRefusedOf(db, storeId, orderId)]);
  return { ...sums, uncollected, refundsRefused };
}

/** What is left to refund of the order now (refundableOf): what a cancel gives back. */
export async function refundableNow(db: Sql, order: Pick<OrderRow, 'storeId' | 'id' | 'total' | 'amountRefunded' | 'amountChargedBack'>): Promise<number> {
  return refundableOf(order, await committedRefunds(db, order.storeId, order.id));
}

/** The order locked for a refund, with its items; 404 for another store's, 409 while its payment is not refundable. */
async function lockRefundable(trx: Transaction, storeId: string, orderId: string) {
  const order = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first()) as OrderRow | undefined;
  if (!order) throw notFound('Order');
  if (!REFUNDABLE_STATES.includes(order.paymentStatus)) throw notRefundable(order);
  const items = (await trx('orderItems').where({ storeId, orderId }).orderBy('position')) as OrderItemRow[];
  return { order, items };
}

/** The preview (`?dryRun=true`): the amounts a refund would move, nothing written. */
export async function previewRefund(ctx: AppContext, storeId: string, orderId: string, input: RefundInput) {
  const order = (await ctx.db('orders').where({ storeId, id: orderId }).first()) as OrderRow | undefined;
  if (!order) throw notFound('Order');
  if (!REFUNDABLE_STATES.includes(order.paymentStatus)) throw notRefundable(order);
  const items = (await ctx.db('orderItems').where({ storeId, orderId }).orderBy('position')) as OrderItemRow[];
  const calculation = calculateRefund(order, items, await committedRefunds(ctx.db, storeId, orderId), input);
  return {
    preview: {
      amount: calculation.amount,
      itemsAmount: calculation.itemsAmount,
      shipping: calculation.shipping,
      taxAmount: calculation.taxAmount,
      items: calculation.items.map(({ orderItemId, quantity, restock, amount }) => ({ orderItemId, quantity, restock, amount })),
      refundable: calculation.refundable,
      refundableAfter: calculation.refundable - calculation.amount
    }
  };
}

/** The variants of the lines a refund request asks to restock (read before its transaction, to lock them first). */
export async function requestedRestockVariantIds(db: Sql, storeId: string, orderId: string, input: RefundInput): Promise<string[]> {
  const requested = new Set((input.items ?? []).filter((line) => line.restock).map((line) => line.orderItemId));
  if (!requested.size) return [];
  const rows = (await db('orderItems').where({ storeId, orderId }).whereIn('id', [...requested]).whereNotNull('variantId').select('variantId')) as Array<{ variantId: string }>;
  return rows.map((row) => row.variantId);
}

/** The variants a (reserved) refund puts back, locked first (the lock order of every stock move: variants, then the order). */
export const refundRestockVariantIds = (refund: Pick<RefundRow, 'items'>) => [...new Set(refund.items.filter((line) => line.restock && line.variantId).map((line) => line.variantId!))];

/**
 * Reserves a refund under the order's row lock: the amount is checked against what is left (the
 * total, less what was refunded and what refunds in flight hold) and a `pending` refund row holds
 * it with its items (their refunded units counted), so concurrent refunds can never add up to more
 * than was paid. The caller locked the restocked variants first. `returnId` links a return's refund.
 */
export async function reserveRefund(
  trx: Transaction,
  storeId: string,
  orderId: string,
  input: RefundInput,
  actor: Actor,
  options: { returnId?: string } = {}
): Promise<{ refund: RefundRow; order: OrderRow; calculation: RefundCalculation }> {
  const { order, items } = await lockRefundable(trx, storeId, orderId);
  const calculation = calculateRefund(order, items, await committedRefunds(trx, storeId, orderId), input);
  // The payments it goes to, newest first, each within what it still holds (refund-payments.ts).
  const payments = await allocateRefund(trx, order, calculation.amount);
  const [refund] = (await trx('orderRefunds')
    .insert({
      storeId,
      orderId,
      status: 'pending',
      source: 'admin',
      amount: calculation.amount,
      payments: JSON.stringify(payments),
      shipping: calculation.shipping,
      taxAmount: calculation.taxAmount,
      taxLines: JSON.stringify(calculation.taxLines),
      items: JSON.stringify(calculation.items),
      reason: input.reason,
      notifyCustomer: input.notifyCustomer ?? true,
      returnId: options.returnId ?? null,
      userId: actor.type === 'user' ? actor.userId : null
    })
    .returning('*')) as RefundRow[];
  for (const line of calculation.items) {
    await trx('orderItems').where({ storeId, id: line.orderItemId }).update({ refundedQuantity: trx.raw('refunded_quantity + ?', [line.quantity]) });
  }
  return { refund: refund!, order, calculation };
}

/**
 * A refund succeeded (recorded for a manual order, or answered by Stripe): the row says so, the
 * order's payment moves through the state machine (the amount refunded is the larger of what it
 * was plus this refund and what the refund rows add up to, so a Stripe event that already counted
 * it does not count it twice), refunded items with `restock` go back on the shelf (capped at what a
 * cancel or return has not put back already; the row keeps each line's `restockedQuantity`), and
 * the timeline says so. The variants were locked by the caller, before the order. Returns the order
 * as it was before its payment moved (what the refund email shows).
 */
export async function settleRefund(trx: Transaction, emit: EmitEvent, refund: RefundRow, actor: Actor, stripeRefundId: string | null): Promise<{ order: OrderRow }> {
  // The refund row first, its lines after (the order failPendingRefund takes them in).
  await trx('orderRefunds')
    .where({ storeId: refund.storeId, id: refund.id })
    .update({ status: 'succeeded', stripeRefundId: stripeRefundId ?? refund.stripeRefundId, updatedAt: trx.fn.now() });
  // An edit's refund gives back what the edit took off the total: the payment's state and the amount refunded stay.
  if (refund.source === 'edit') {
    await recordOrderEvent(trx, refund.storeId, refund.orderId, 'refunded', actor, {
      refundId: refund.id,
      amount: Number(refund.amount),
      reason: refund.reason,
      source: refund.source,
      stripeRefundId: stripeRefundId ?? refund.stripeRefundId
    });
    emit({ type: 'order.changed', storeId: refund.storeId, orderId: refund.orderId, change: 'refunded' });
    return { order: (await trx('orders').where({ storeId: refund.storeId, id: refund.orderId }).first()) as OrderRow };
  }
  const order = (await trx('orders').where({ storeId: refund.storeId, id: refund.orderId }).first()) as OrderRow;
  // Restocked lines go back now, each capped at what a cancel or a return did not already put back.
  const restock = await restockOrderLines(
    trx,
    refund.storeId,
    refund.orderId,
    refund.items.filter((line) => line.restock).map(({ orderItemId, quantity }) => ({ orderItemId, quantity })),
    { userId: actor.type === 'user' ? actor.userId : null, reason: `order #${order.number} refunded`, code: 'refund' }
  );
  const restockedOf = new Map(restock.lines.map((line) => [line.orderItemId, line.restockedQuantity]));
  const items = refund.items.map((line) => ({ ...line, restockedQuantity: line.restock ? (restockedOf.get(line.orderItemId) ?? 0) : 0 }));
  await trx('orderRefunds').where({ storeId: refund.storeId, id: refund.id }).update({ items: JSON.stringify(items) });
  const settled = (await trx('orderRefunds').where({ storeId: refund.storeId, orderId: refund.orderId, status: 'succeeded' }).whereNot({ source: 'edit' }).sum<{ sum: string | null }[]>('amount as sum').first())?.sum;
  const amountRefunded = Math.min(Number(order.total), Math.max(Number(order.amountRefunded) + Number(refund.amount), Number(settled ?? 0)));
  const state = amountRefunded >= Number(order.total) ? 'refunded' : 'partially_refunded';
  await moveOrderPayment(trx, refund.storeId, refund.orderId, { state, amountRefunded }, { actor });
  emit({ type: 'order.changed', storeId: refund.storeId, orderId: refund.orderId, change: 'refunded' });
  if (restock.backInStock.length) emit({ type: 'inventory.changed', storeId: refund.storeId, variantIds: restock.backInStock });
  await recordOrderEvent(trx, refund.storeId, refund.orderId, 'refunded', actor, {
    refundId: refund.id,
    amount: Number(refund.amount),
    shipping: Number(refund.shipping),
    items: items.map(({ orderItemId, quantity, restock, restockedQuantity }) => ({ orderItemId, quantity, restock, restockedQuantity })),
    reason: refund.reason,
    source: refund.source,
    stripeRefundId: stripeRefundId ?? refund.stripeRefundId
  });
  return { order };
}

/** A refund of the store, or undefined. */
export async function findRefund(db: Sql, storeId: string, refundId: string): Promise<RefundRow | undefined> {
  return (await db('orderRefunds').where({ storeId, id: refundId }).first()) as RefundRow | undefined;
}

/**
 * A pending refund about to be settled, under its order's row lock (the caller locked the restocked
 * variants first): the refund read again, or null when someone settled or released it meanwhile
 * (its Stripe id is then filled in if it had none).
 */
export async function lockPendingRefund(trx: Transaction, storeId: string, orderId: string, refundId: string, stripeRefundId: string): Promise<RefundRow | null> {
  await trx('orders').where({ storeId, id: orderId }).forUpdate().first('id');
  const refund = (await trx('orderRefunds').where({ storeId, id: refundId }).first()) as RefundRow;
  if (refund.status === 'pending') return refund;
  if (!refund.stripeRefundId) await trx('orderRefunds').where({ storeId, id: refundId }).update({ stripeRefundId });
  return null;
}

/** Stripe refused a refund: its reservation (amount, items) is released and the timeline says so. */
export async function failPendingRefund(ctx: AppContext, storeId: string, refundId: string, actor: Actor, why: string): Promise<boolean> {
  return withTransaction(ctx, async (trx) => {
    const refund = (await trx('orderRefunds').where({ storeId, id: refundId, status: 'pending' }).forUpdate().first()) as RefundRow | undefined;
    if (!refund) return false;
    await trx('orderRefunds').where({ storeId, id: refundId }).update({ status: 'failed', updatedAt: trx.fn.now() });
    for (const line of refund.items) {
      await trx('orderItems').where({ storeId, id: line.orderItemId }).update({ refundedQuantity: trx.raw('greatest(refunded_quantity - ?, 0)', [line.quantity]) });
    }
    await recordOrderEvent(trx, storeId, refund.orderId, 'refund_failed', actor, { refundId, amount: Number(refund.amount), error: why.slice(0, 500) });
    return true;
  });
}

/** The answer of a refund request: the refund as it now is, and its order. */
export async function refundAnswer(ctx: AppContext, storeId: string, orderId: string, refundId: string) {
  const row = (await ctx.db('orderRefunds').where({ storeId, id: refundId }).first()) as RefundRow;
  return { refund: toRefundDto(row), order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}
