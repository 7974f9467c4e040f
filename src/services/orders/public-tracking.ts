import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';

/** What anyone holding the tracking token may see: no email, no address, no prices per line. */
export async function trackOrder(ctx: AppContext, trackingToken: string) {
  const order = await ctx.db('orders as o')
    .join('stores as s', 's.id', 'o.storeId')
    .where('o.trackingToken', trackingToken)
    .first('o.id', 'o.number', 'o.status', 'o.paymentStatus', 'o.fulfillmentStatus', 'o.createdAt', 'o.total', 'o.currency', 's.name as storeName');
  if (!order) throw notFound('Order');
  const [items, fulfillments] = await Promise.all([
    ctx.db('orderItems').where({ orderId: order.id }).orderBy('position').select('title', 'quantity', 'fulfilledQuantity'),
    ctx.db('fulfillments').where({ orderId: order.id }).orderBy('createdAt').select('trackingCompany', 'trackingNumber', 'trackingUrl', 'createdAt')
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
      currency: order.currency,
      fulfillments
    },
    store: { name: order.storeName }
  };
}
