import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { lockVariants } from '../catalog/inventory.js';
import { releaseDiscountUse } from '../discounts.js';
import { enqueueEmail } from '../email/outbox.js';
import { connectedStripeAccount } from '../payments/accounts.js';
import { callStripe, stripeClient } from '../payments/stripe-client.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { unitsOf } from './manual-payments.js';
import { orderCancelledEmail } from './notifications.js';
import { applyFigureChange } from './order-figures.js';
import { loadOrder } from './orders.js';
import { moveOrderPayment } from './payment-moves.js';
import { REFUNDABLE_STATES } from './refund-amounts.js';
import { createRefund } from './refunds.js';
import { restockOrderLines } from './restock.js';
import { recordOrderEvent, type Actor } from './timeline.js';
import { orderMailStore, trackingUrlFor } from './tracking-url.js';
import { withTransaction } from '../with-transaction.js';

export interface CancelInput {
  reason: string;
  restock?: boolean;
  refund?: boolean;
  notifyCustomer?: boolean;
}

const orderFulfilled = () =>
  conflict('order_fulfilled', 'Items of this order were fulfilled: it cannot be cancelled; take the items back with a return', [
    { path: 'orderId', message: 'order has fulfilled items' }
  ]);

/**
 * Cancels an order while nothing of it was fulfilled (409 `order_fulfilled` after: a return takes
 * items back). The money first, outside any lock: an authorised Stripe payment is voided (the
 * PaymentIntent cancelled), a paid one refunded (a refund like any other, for what is left) when
 * `refund`; a pending manual payment is voided. Then one transaction: the variants locked (the
 * lock order of every stock move), the order re-checked under its lock, its units back on the
 * shelf when `restock` (only those no refund put back already: restockOrderLines; the storefront
 * documents follow in the same transaction, by trigger), the
 * discount's use given back, revenue and the customer's figures net of it, the timeline and the
 * `order_cancelled` email. A second cancel answers the cancelled order as it is.
 */
export async function cancelOrder(ctx: AppContext, storeId: string, orderId: string, input: CancelInput, actor: Actor) {
  const restock = input.restock ?? true;
  const refund = input.refund ?? true;
  const notify = input.notifyCustomer ?? true;
  const store = await orderMailStore(ctx, storeId);
  const current = (await ctx.db('orders').where({ storeId, id: orderId }).first()) as OrderRow | undefined;
  if (!current) throw notFound('Order');
  if (current.status === 'cancelled') return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
  if (current.fulfillmentStatus !== 'unfulfilled') throw orderFulfilled();

  if (current.paymentProvider === 'stripe' && current.paymentStatus === 'authorized' && current.paymentIntentId) {
    const account = await connectedStripeAccount(ctx.db, storeId);
    await callStripe('cancel the payment', () =>
      stripeClient(ctx).paymentIntents.cancel(current.paymentIntentId!, { cancellation_reason: 'requested_by_customer' }, { stripeAccount: account ?? undefined, idempotencyKey: `order-cancel:${orderId}:void` })
    );
  } else if (refund && REFUNDABLE_STATES.includes(current.paymentStatus)) {
    const left = Number(current.total) - Number(current.amountRefunded);
    const pending = Number((await ctx.db('orderRefunds').where({ storeId, orderId, status: 'pending' }).sum<{ sum: string | null }[]>('amount as sum').first())?.sum ?? 0);
    if (left - pending > 0) await createRefund(ctx, storeId, orderId, { amount: left - pending, reason: `cancelled: ${input.reason}`, notifyCustomer: false }, actor);
  }

  await withTransaction(ctx, async (trx, emit) => {
    const items = (await trx('orderItems').where({ orderId, storeId }).orderBy('position')) as OrderItemRow[];
    await lockVariants(trx, storeId, restock ? [...unitsOf(items).keys()] : []);
    const before = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first()) as OrderRow;
    if (before.status === 'cancelled') return;
    if (before.fulfillmentStatus !== 'unfulfilled') throw orderFulfilled();
    const voidable = before.paymentStatus === 'pending' || before.paymentStatus === 'authorized' || before.paymentStatus === 'failed';
    if (voidable) await moveOrderPayment(trx, storeId, orderId, { state: 'voided' }, { actor }, { reason: input.reason });
    const afterPayment = (await trx('orders').where({ storeId, id: orderId }).first()) as OrderRow;
    const [order] = (await trx('orders')
      .where({ storeId, id: orderId })
      .update({ status: 'cancelled', cancelledAt: trx.fn.now(), cancelReason: input.reason, updatedAt: trx.fn.now() })
      .returning('*')) as OrderRow[];
    await applyFigureChange(trx, before, afterPayment, order!);
    emit({ type: 'order.changed', storeId, orderId, change: 'cancelled' });
    await recordAudit(ctx, trx, { storeId, action: 'order.cancelled', resourceType: 'order', resourceId: orderId, before: { status: before.status, paymentStatus: before.paymentStatus }, after: { status: 'cancelled', paymentStatus: afterPayment.paymentStatus, reason: input.reason, restock } });
    // What a refund or a return already put back stays put: only the rest of each line goes back.
    const restocked = restock
      ? await restockOrderLines(
          trx,
          storeId,
          orderId,
          items.map((item) => ({ orderItemId: item.id, quantity: item.quantity })),
          { userId: actor.type === 'user' ? actor.userId : null, reason: `order #${before.number} cancelled`, code: 'cancel' }
        )
      : null;
    const backInStock = restocked?.backInStock ?? [];
    if (backInStock.length) emit({ type: 'inventory.changed', storeId, variantIds: backInStock });
    if (before.discountCode) await releaseDiscountUse(trx, storeId, before.discountCode);
    await recordOrderEvent(trx, storeId, orderId, 'cancelled', actor, {
      reason: input.reason,
      restocked: restock,
      restockedQuantity: restocked?.restockedQuantity ?? 0,
      refunded: Number(order!.amountRefunded) - Number(current.amountRefunded),
      discountReleased: before.discountCode
    });
    if (notify) {
      await enqueueEmail(ctx, orderCancelledEmail(store.name, order!, items, trackingUrlFor(store.trackingBase, order!.trackingToken), input.reason), { trx });
      await recordOrderEvent(trx, storeId, orderId, 'email_sent', actor, { template: 'order_cancelled', to: order!.email });
    }
  });
  return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}
