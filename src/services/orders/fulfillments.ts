import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { enqueueEmail } from '../email/outbox.js';
import type { FulfillmentRow, OrderItemRow, OrderRow } from './dto.js';
import { shippingConfirmationEmail } from './notifications.js';
import { loadOrder } from './orders.js';
import { recordOrderEvent, SYSTEM, type Actor } from './timeline.js';
import { orderMailStore, trackingUrlFor } from './tracking-url.js';
import { withTransaction } from '../with-transaction.js';

export interface FulfillmentInput {
  items?: Array<{ orderItemId: string; quantity: number }>;
  trackingCompany?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  notifyCustomer?: boolean;
}

export const alreadyFulfilled = (message: string, path = 'items') => conflict('already_fulfilled', message, [{ path, message }]);

export function deriveFulfillmentStatus(items: Array<Pick<OrderItemRow, 'quantity' | 'fulfilledQuantity'>>): OrderRow['fulfillmentStatus'] {
  const fulfilled = items.reduce((sum, item) => sum + item.fulfilledQuantity, 0);
  if (fulfilled === 0) return 'unfulfilled';
  return items.every((item) => item.fulfilledQuantity >= item.quantity) ? 'fulfilled' : 'partially_fulfilled';
}

/**
 * Ships some or all of an order's items. The order row is locked, so two fulfilments racing for
 * the last units cannot both pass; asking for more than is left is 409 `already_fulfilled`.
 */
export async function createFulfillment(ctx: AppContext, storeId: string, orderId: string, input: FulfillmentInput, actor: Actor = SYSTEM) {
  // Read before the transaction: a cache miss must not wait for a second pool connection while this one is held.
  const store = await orderMailStore(ctx, storeId);
  const fulfillment = await withTransaction(ctx, async (trx, emit) => {
    const order: OrderRow | undefined = await trx('orders').where({ storeId, id: orderId }).forUpdate().first();
    if (!order) throw notFound('Order');
    // Its stock went back when it was cancelled (an unpaid manual order past its deadline).
    if (order.status === 'cancelled') throw conflict('conflict', 'This order is cancelled: nothing of it can be fulfilled', [{ path: 'orderId', message: 'order is cancelled' }]);
    const items: OrderItemRow[] = await trx('orderItems').where({ storeId, orderId }).orderBy('position');
    const byId = new Map(items.map((item) => [item.id, item]));

    let wanted: Array<{ orderItemId: string; quantity: number }>;
    if (input.items && input.items.length > 0) {
      const merged = new Map<string, number>();
      input.items.forEach((entry, index) => {
        if (!byId.has(entry.orderItemId)) throw validationFailed([{ path: `items.${index}.orderItemId`, message: 'not an item of this order' }]);
        merged.set(entry.orderItemId, (merged.get(entry.orderItemId) ?? 0) + entry.quantity);
      });
      wanted = [...merged].map(([orderItemId, quantity]) => ({ orderItemId, quantity }));
      for (const entry of wanted) {
        const item = byId.get(entry.orderItemId)!;
        const left = item.quantity - item.fulfilledQuantity;
        if (entry.quantity > left) {
          throw alreadyFulfilled(left === 0 ? `${item.title} is already fulfilled` : `only ${left} of ${item.title} left to fulfil`, `items.${entry.orderItemId}`);
        }
      }
    } else {
      wanted = items.filter((item) => item.fulfilledQuantity < item.quantity).map((item) => ({ orderItemId: item.id, quantity: item.quantity - item.fulfilledQuantity }));
      if (wanted.length === 0) throw alreadyFulfilled('Every item of this order is already fulfilled');
    }

    for (const entry of wanted) {
      await trx('orderItems').where({ storeId, id: entry.orderItemId }).update({ fulfilledQuantity: trx.raw('fulfilled_quantity + ?', [entry.quantity]) });
      byId.get(entry.orderItemId)!.fulfilledQuantity += entry.quantity;
    }
    const status = deriveFulfillmentStatus(items);
    if (status === 'fulfilled') emit({ type: 'order.changed', storeId, orderId, change: 'fulfilled' });
    await recordAudit(ctx, trx, { storeId, action: 'order.fulfilled', resourceType: 'order', resourceId: orderId, before: { fulfillmentStatus: order.fulfillmentStatus }, after: { fulfillmentStatus: status, items: wanted } });
    const [updatedOrder] = (await trx('orders')
      .where({ storeId, id: orderId })
      .update({ fulfillmentStatus: status, status: status === 'fulfilled' ? 'completed' : order.status, updatedAt: trx.fn.now() })
      .returning('*')) as OrderRow[];
    const [row] = (await trx('fulfillments')
      .insert({
        storeId,
        orderId,
        items: JSON.stringify(wanted),
        trackingCompany: input.trackingCompany ?? null,
        trackingNumber: input.trackingNumber ?? null,
        trackingUrl: input.trackingUrl ?? null,
        notifyCustomer: input.notifyCustomer ?? true
      })
      .returning('*')) as FulfillmentRow[];
    await recordOrderEvent(trx, storeId, orderId, 'fulfilled', actor, { fulfillmentId: row!.id, items: wanted, trackingNumber: row!.trackingNumber });
    if (row!.notifyCustomer) {
      const trackingUrl = trackingUrlFor(store.trackingBase, order.trackingToken);
      await enqueueEmail(ctx, shippingConfirmationEmail(store.name, updatedOrder!, items, row!, trackingUrl), { trx });
      await recordOrderEvent(trx, storeId, orderId, 'email_sent', actor, { template: 'shipping_confirmation', to: order.email });
    }
    return row!;
  });
  const { dto } = await loadOrder(ctx, ctx.db, storeId, orderId);
  return { fulfillment: { ...dto.fulfillments.find((f) => f.id === fulfillment.id)! }, order: dto };
}
