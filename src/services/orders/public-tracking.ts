import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { publicNotes } from './order-notes.js';

/** What anyone holding the tracking token may see: no email, no address, no prices per line. */
export async function trackOrder(ctx: AppContext, trackingToken: string) {
  // The token names no store: this lookup spans stores (docs/scaling.md, cross-store statements).
  const order = await ctx.db('orders as o')
    .comment('cross-store: order tracking token')
    .join('stores as s', 's.id', 'o.storeId')
    .where('o.trackingToken', trackingToken)
    .first('o.id', 'o.storeId', 'o.number', 'o.status', 'o.paymentStatus', 'o.fulfillmentStatus', 'o.createdAt', 'o.total', 'o.currency', 'o.amountRefunded', 'o.cancelledAt', 's.name as storeName');
  if (!order) throw notFound('Order');
  const [items, fulfillments, notes] = await Promise.all([
    ctx.db('orderItems').where({ storeId: order.storeId, orderId: order.id }).orderBy('position').select('title', 'quantity', 'fulfilledQuantity'),
    ctx.db('fulfillments').where({ storeId: order.storeId, orderId: order.id }).orderBy(['createdAt', 'id']).select('trackingCompany', 'trackingNumber', 'trackingUrl', 'createdAt'),
    publicNotes(ctx, order.storeId, order.id)
  ]);
  return {
    order: {
      number: order.number,
      status: order.status,
      paymentStatus: order.paymentStatus,
      fulfillmentStatus: order.fulfillmentStatus,
      createdAt: order.createdAt,
      items,
      total: Number(order.total),
      amountRefunded: Number(order.amountRefunded),
      currency: order.currency,
      cancelledAt: order.cancelledAt,
      fulfillments,
      notes
    },
    store: { name: order.storeName }
  };
}
