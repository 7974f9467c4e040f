import type { EnqueueEmailInput } from '../email/index.js';
import { formatMoney } from '../checkout/index.js';
import type { FulfillmentRow, OrderItemRow, OrderRow } from './dto.js';

interface Customer {
  firstName: string | null;
  lastName: string | null;
}

const orderContext = (order: OrderRow, items: OrderItemRow[], trackingUrl: string) => ({
  number: `#${order.number}`,
  items: items.map((item) => ({ title: item.title, quantity: item.quantity, unitPrice: item.unitPrice, lineTotal: Number(item.lineTotal) })),
  subtotal: Number(order.subtotal),
  total: Number(order.total),
  currency: order.currency,
  totalFormatted: formatMoney(Number(order.total), order.currency),
  trackingUrl
});

/**
 * An order email: the store, the customer (named as on the order: the customer record, else the
 * shipping address) and the order context every order template gets, plus the template's own part.
 */
function orderEmail(
  templateKey: string,
  storeName: string,
  order: OrderRow,
  items: OrderItemRow[],
  trackingUrl: string,
  extra: Record<string, unknown>,
  customer: Partial<Customer> = order.shippingAddress as Partial<Customer>
): EnqueueEmailInput {
  return {
    storeId: order.storeId,
    to: order.email,
    templateKey,
    data: {
      store: { name: storeName },
      customer: { firstName: customer.firstName ?? 'there', lastName: customer.lastName ?? '', email: order.email },
      order: orderContext(order, items, trackingUrl),
      ...extra
    }
  };
}

/** The `order_confirmation` email for a new order; the link is the public tracking URL. */
export function orderConfirmationEmail(storeName: string, order: OrderRow, items: OrderItemRow[], customer: Customer, trackingUrl: string): EnqueueEmailInput {
  return orderEmail('order_confirmation', storeName, order, items, trackingUrl, {}, customer);
}

/** The `shipping_confirmation` email for a fulfilment; the order link is the public tracking URL. */
export function shippingConfirmationEmail(
  storeName: string,
  order: OrderRow,
  items: OrderItemRow[],
  fulfillment: FulfillmentRow,
  trackingUrl: string
): EnqueueEmailInput {
  return orderEmail('shipping_confirmation', storeName, order, items, trackingUrl, {
    fulfillment: {
      trackingCompany: fulfillment.trackingCompany ?? '',
      trackingNumber: fulfillment.trackingNumber ?? '',
      // The carrier's link when there is one; the order's tracking page otherwise.
      trackingUrl: fulfillment.trackingUrl ?? trackingUrl,
      orderTrackingUrl: trackingUrl,
      items: fulfillment.items
    }
  });
}

/** The `order_cancelled` email: the order, its items and why it was cancelled (a sentence). */
export function orderCancelledEmail(storeName: string, order: OrderRow, items: OrderItemRow[], trackingUrl: string, reason: string): EnqueueEmailInput {
  return orderEmail('order_cancelled', storeName, order, items, trackingUrl, { cancellation: { reason } });
}

/** The `order_refunded` email: how much went back and, when items were refunded, which. */
export function orderRefundedEmail(
  storeName: string,
  order: OrderRow,
  items: OrderItemRow[],
  trackingUrl: string,
  refund: { amount: number; reason: string | null; items: Array<{ orderItemId: string; quantity: number }> }
): EnqueueEmailInput {
  const titles = new Map(items.map((item) => [item.id, item.title]));
  return orderEmail('order_refunded', storeName, order, items, trackingUrl, {
    refund: {
      amount: refund.amount,
      amountFormatted: formatMoney(refund.amount, order.currency),
      reason: refund.reason ?? '',
      items: refund.items.map((line) => ({ title: titles.get(line.orderItemId) ?? '', quantity: line.quantity }))
    }
  });
}
