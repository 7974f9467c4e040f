import { formatMoney } from '../../services/checkout/index.js';
import type { trackOrder } from '../../services/orders/index.js';
import type { PageContent } from '../public/html-page.js';

type Tracked = Awaited<ReturnType<typeof trackOrder>>;

const ORDER_STATUS: Record<string, string> = { open: 'Open', completed: 'Completed', cancelled: 'Cancelled' };
const PAYMENT_STATUS: Record<string, string> = { pending: 'Payment pending', paid: 'Paid', refunded: 'Refunded', failed: 'Payment failed' };
const FULFILLMENT_STATUS: Record<string, string> = { unfulfilled: 'Not shipped yet', partially_fulfilled: 'Partly shipped', fulfilled: 'Shipped' };

const day = (value: Date | string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(value));

/** What the tracking link shows a shopper: the JSON route's data as a page (no email, no address). */
export function trackingPage({ order, store }: Tracked): PageContent {
  const status = order.status === 'open' ? `${PAYMENT_STATUS[order.paymentStatus]} · ${FULFILLMENT_STATUS[order.fulfillmentStatus]}` : ORDER_STATUS[order.status];
  return {
    title: `Order #${order.number}`,
    paragraphs: [`${store.name} · placed ${day(order.createdAt)}`, `Status: ${status ?? order.status}`, `Total: ${formatMoney(order.total, order.currency)}`],
    sections: [
      {
        heading: 'Items',
        items: order.items.map((item: { title: string; quantity: number; fulfilledQuantity: number }) => ({
          text: `${item.quantity} × ${item.title}${item.fulfilledQuantity > 0 && item.fulfilledQuantity < item.quantity ? ` (${item.fulfilledQuantity} shipped)` : ''}`
        }))
      },
      {
        heading: 'Shipments',
        items: order.fulfillments.map((shipment: { trackingCompany: string | null; trackingNumber: string | null; trackingUrl: string | null; createdAt: Date }) => ({
          text: [`Shipped ${day(shipment.createdAt)}`, shipment.trackingCompany, shipment.trackingNumber].filter(Boolean).join(' · '),
          link: shipment.trackingUrl
        }))
      }
    ]
  };
}

export const trackingNotFoundPage = (): PageContent => ({
  title: 'Order not found',
  paragraphs: ['This tracking link does not match an order. Check that the whole link from your email was opened.']
});
