import type { AppContext } from '../context.js';
import { lockVariants } from '../services/catalog/index.js';
import { releaseDiscountUse } from '../services/discounts/index.js';
import { enqueueEmail } from '../services/email/index.js';
import {
  findOrder,
  loadOrder,
  markOrderCancelled,
  orderCancelledEmail,
  orderFulfilled,
  orderItemsOf,
  orderMailStore,
  refundableNow,
  recordOrderEvent,
  REFUNDABLE_STATES,
  restockOrderLines,
  trackingUrlFor,
  unitsOf,
  type Actor,
  type CancelInput
} from '../services/orders/index.js';
import { voidStripePayment } from '../services/payments/index.js';
import { withTransaction } from '../platform/with-transaction.js';
import { recordAudit } from '../services/audit/index.js';
import { refundOrder } from './refund-order.js';

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
  const current = await findOrder(ctx, storeId, orderId);
  if (current.status === 'cancelled') return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
  if (current.fulfillmentStatus !== 'unfulfilled') throw orderFulfilled();

  if (current.paymentProvider === 'stripe' && current.paymentStatus === 'authorized' && current.paymentIntentId) {
    await voidStripePayment(ctx, storeId, current.paymentIntentId, `order-cancel:${orderId}:void`);
  } else if (refund && REFUNDABLE_STATES.includes(current.paymentStatus)) {
    // What was paid and not yet given back (an open balance link's amount was never paid).
    const left = await refundableNow(ctx.db, current);
    if (left > 0) await refundOrder(ctx, storeId, orderId, { amount: left, reason: `cancelled: ${input.reason}`, notifyCustomer: false }, actor);
  }

  await withTransaction(ctx, async (trx, emit) => {
    const items = await orderItemsOf(trx, storeId, orderId);
    await lockVariants(trx, storeId, restock ? [...unitsOf(items).keys()] : []);
    const cancelled = await markOrderCancelled(trx, emit, storeId, orderId, input.reason, actor);
    if (!cancelled) return;
    const { before, order } = cancelled;
    await recordAudit(ctx, trx, { storeId, action: 'order.cancelled', resourceType: 'order', resourceId: orderId, before: { status: before.status, paymentStatus: before.paymentStatus }, after: { status: 'cancelled', paymentStatus: order.paymentStatus, reason: input.reason, restock } });
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
      refunded: Number(order.amountRefunded) - Number(current.amountRefunded),
      discountReleased: before.discountCode
    });
    if (notify) {
      await enqueueEmail(ctx, orderCancelledEmail(store.name, order, items, trackingUrlFor(store.trackingBase, order.trackingToken), input.reason), { trx });
      await recordOrderEvent(trx, storeId, orderId, 'email_sent', actor, { template: 'order_cancelled', to: order.email });
    }
  });
  return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}
