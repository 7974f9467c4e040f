import { recordAudit } from '../audit/index.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { lockVariants } from '../catalog/index.js';
import { enqueueEmail } from '../email/index.js';
import { type EmitEvent } from '../../platform/events/domain-events.js';
import { refundStripePayment } from '../payments/index.js';
import type { OrderItemRow, OrderRow, RefundRow } from './dto.js';
import { toRefundDto } from './dto.js';
import { orderRefundedEmail } from './notifications.js';
import { loadOrder } from './orders.js';
import { moveOrderPayment } from './payment-moves.js';
import { restockOrderLines } from './restock.js';
import { calculateRefund, notRefundable, REFUNDABLE_STATES, type RefundInput } from './refund-amounts.js';
import { recordOrderEvent, type Actor } from './timeline.js';
import { orderMailStore, trackingUrlFor } from './tracking-url.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { taxProviderOf } from '../taxes/index.js';
import type { Sql, Transaction } from '../../db/transaction.js';

type MailStore = { name: string; trackingBase: string };

/** What refunds already hold of the order: in flight (pending) and of shipping (not failed). */
async function committedRefunds(db: Sql, storeId: string, orderId: string) {
  const row = (await db('orderRefunds')
    .where({ storeId, orderId })
    .whereNot({ status: 'failed' })
    .first(
      db.raw(`coalesce(sum(amount) filter (where status = 'pending'), 0) as pending`),
      db.raw('coalesce(sum(shipping), 0) as shipping_refunded'),
      db.raw('coalesce(sum(tax_amount), 0) as tax_refunded')
    )) as {
    pending: string;
    shippingRefunded: string;
    taxRefunded: string;
  };
  return { pending: Number(row.pending), shippingRefunded: Number(row.shippingRefunded), taxRefunded: Number(row.taxRefunded) };
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

/**
 * A refund succeeded (recorded for a manual order, or answered by Stripe): the row says so, the
 * order's payment moves through the state machine (the amount refunded is the larger of what it
 * was plus this refund and what the refund rows add up to, so a Stripe event that already counted
 * it does not count it twice), refunded items with `restock` go back on the shelf (capped at what a
 * cancel or return has not put back already; the row keeps each line's `restockedQuantity`), the
 * timeline and (if asked) the customer hear of it. The variants were locked by the caller, before the order.
 */
async function settleRefund(
  ctx: AppContext,
  trx: Transaction,
  emit: EmitEvent,
  store: MailStore,
  refund: RefundRow,
  actor: Actor,
  stripeRefundId: string | null
) {
  // The refund row first, its lines after (the order failPendingRefund takes them in).
  await trx('orderRefunds')
    .where({ storeId: refund.storeId, id: refund.id })
    .update({ status: 'succeeded', stripeRefundId: stripeRefundId ?? refund.stripeRefundId, updatedAt: trx.fn.now() });
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
  const settled = (await trx('orderRefunds').where({ storeId: refund.storeId, orderId: refund.orderId, status: 'succeeded' }).sum<{ sum: string | null }[]>('amount as sum').first())?.sum;
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
  if (refund.notifyCustomer) {
    const items = (await trx('orderItems').where({ storeId: refund.storeId, orderId: refund.orderId }).orderBy('position')) as OrderItemRow[];
    const trackingUrl = trackingUrlFor(store.trackingBase, order.trackingToken);
    await enqueueEmail(ctx, orderRefundedEmail(store.name, order, items, trackingUrl, { amount: Number(refund.amount), reason: refund.reason, items: refund.items }), { trx });
    await recordOrderEvent(trx, refund.storeId, refund.orderId, 'email_sent', actor, { template: 'order_refunded', to: order.email });
  }
}

/** The variants a refund puts back, locked first (the lock order of every stock move: variants, then the order). */
const restockVariantIds = (lines: RefundRow['items']) => [...new Set(lines.filter((line) => line.restock && line.variantId).map((line) => line.variantId!))];

/**
 * Settles a pending (Stripe) refund once Stripe accepted it, whoever learns it first: the admin
 * request that asked Stripe, or the refund's webhook event. Under the order lock, so it happens once.
 */
export async function settlePendingRefund(ctx: AppContext, storeId: string, refundId: string, stripeRefundId: string, actor: Actor): Promise<boolean> {
  const store = await orderMailStore(ctx, storeId);
  const pending = (await ctx.db('orderRefunds').where({ storeId, id: refundId }).first()) as RefundRow | undefined;
  if (!pending) return false;
  return withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, restockVariantIds(pending.items));
    await trx('orders').where({ storeId, id: pending.orderId }).forUpdate().first('id');
    const refund = (await trx('orderRefunds').where({ storeId, id: refundId }).first()) as RefundRow;
    if (refund.status !== 'pending') {
      if (!refund.stripeRefundId) await trx('orderRefunds').where({ storeId, id: refundId }).update({ stripeRefundId });
      return false;
    }
    await settleRefund(ctx, trx, emit, store, refund, actor, stripeRefundId);
    return true;
  });
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

/**
 * A refund of an order whose tax the provider recorded (Stripe Tax) reverses that much of its
 * transaction (a partial reversal of the refund's amount, keyed by the refund). Best effort after
 * the refund: a failure is logged, the refund stands.
 */
async function reverseTax(ctx: AppContext, storeId: string, order: OrderRow, refund: RefundRow) {
  const current = (await ctx.db('orders').where({ storeId, id: order.id }).first('taxProvider', 'taxTransactionId')) as Pick<OrderRow, 'taxProvider' | 'taxTransactionId'> | undefined;
  const provider = taxProviderOf(current?.taxProvider);
  if (!current?.taxTransactionId || !provider.reverse) return;
  try {
    await provider.reverse(ctx, storeId, { id: refund.id, orderTransactionId: current.taxTransactionId, amount: Number(refund.amount) });
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message }, storeId, orderId: order.id, refundId: refund.id }, 'tax reversal not recorded');
  }
}

/**
 * Refunds part or all of an order's payment. Under the order's row lock the amount is checked
 * against what is left (the total, less what was refunded and what refunds in flight hold) and a
 * refund row reserves it with its items, so concurrent refunds can never add up to more than was
 * paid. A manual order's refund is recorded at once; a Stripe order's is asked of Stripe after
 * the commit (never under a lock), on the store's connected account, with an idempotency key of
 * the refund's id and the application fee reversed in proportion, then settled (or released if
 * Stripe refuses: 502). `returnId` links a return's refund.
 */
export async function createRefund(ctx: AppContext, storeId: string, orderId: string, input: RefundInput, actor: Actor, options: { returnId?: string } = {}) {
  const store = await orderMailStore(ctx, storeId);
  const requested = new Set((input.items ?? []).filter((line) => line.restock).map((line) => line.orderItemId));
  const variantIds = requested.size
    ? ((await ctx.db('orderItems').where({ storeId, orderId }).whereIn('id', [...requested]).whereNotNull('variantId').select('variantId')) as Array<{ variantId: string }>).map((row) => row.variantId)
    : [];
  const reserved = await withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, variantIds);
    const { order, items } = await lockRefundable(trx, storeId, orderId);
    const calculation = calculateRefund(order, items, await committedRefunds(trx, storeId, orderId), input);
    const stripe = order.paymentProvider === 'stripe';
    const [refund] = (await trx('orderRefunds')
      .insert({
        storeId,
        orderId,
        status: 'pending',
        source: 'admin',
        amount: calculation.amount,
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
    if (!stripe) await settleRefund(ctx, trx, emit, store, refund!, actor, null);
    await recordAudit(ctx, trx, {
      storeId,
      action: 'order.refunded',
      resourceType: 'order',
      resourceId: orderId,
      details: { refundId: refund!.id, amount: Number(refund!.amount), shipping: Number(refund!.shipping), items: calculation.items, reason: input.reason ?? null, provider: order.paymentProvider }
    });
    return { refund: refund!, order };
  });

  if (reserved.order.paymentProvider === 'stripe') {
    const { refund, order } = reserved;
    let stripeRefund: { id: string; status: string | null };
    try {
      stripeRefund = await refundStripePayment(ctx, storeId, {
        paymentIntentId: order.paymentIntentId,
        amount: Number(refund.amount),
        metadata: { storeId, orderId, refundId: refund.id },
        idempotencyKey: `order-refund:${refund.id}`
      });
    } catch (error) {
      await failPendingRefund(ctx, storeId, refund.id, actor, (error as Error).message);
      throw error;
    }
    if (stripeRefund.status === 'failed' || stripeRefund.status === 'canceled') {
      await failPendingRefund(ctx, storeId, refund.id, actor, `Stripe answered ${stripeRefund.status}`);
      throw conflict('refund_failed', `Stripe could not refund the payment (${stripeRefund.status})`, [{ path: 'amount', message: `refund ${stripeRefund.status}` }]);
    }
    await settlePendingRefund(ctx, storeId, refund.id, stripeRefund.id, actor);
  }
  const row = (await ctx.db('orderRefunds').where({ storeId, id: reserved.refund.id }).first()) as RefundRow;
  if (row.status === 'succeeded') await reverseTax(ctx, storeId, reserved.order, row);
  return { refund: toRefundDto(row), order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}
