import type { BaseModel } from '../../db/models/base-model.js';
import type { Fulfillment } from '../../db/models/fulfillment.js';
import type { OrderItem } from '../../db/models/order-item.js';
import type { Order } from '../../db/models/order.js';
/** Row shapes are the models' (src/db/models): one declaration of each table's columns. */
export type OrderRow = Omit<Order, 'items' | 'fulfillments' | keyof BaseModel>;

export type OrderItemRow = Omit<OrderItem, keyof BaseModel>;

export type FulfillmentRow = Omit<Fulfillment, keyof BaseModel>;

export const toFulfillmentDto = (row: FulfillmentRow) => ({
  id: row.id,
  items: row.items,
  trackingCompany: row.trackingCompany,
  trackingNumber: row.trackingNumber,
  trackingUrl: row.trackingUrl,
  notifyCustomer: row.notifyCustomer,
  createdAt: row.createdAt
});

export const toOrderItemDto = (row: OrderItemRow) => ({
  id: row.id,
  productId: row.productId,
  variantId: row.variantId,
  title: row.title,
  sku: row.sku,
  quantity: row.quantity,
  unitPrice: row.unitPrice,
  lineTotal: Number(row.lineTotal),
  fulfilledQuantity: row.fulfilledQuantity
});

/** The list shape: no items, no addresses. */
export const toOrderSummaryDto = (row: OrderRow) => ({
  id: row.id,
  number: row.number,
  email: row.email,
  customerId: row.customerId,
  status: row.status,
  paymentStatus: row.paymentStatus,
  amountRefunded: Number(row.amountRefunded ?? 0),
  fulfillmentStatus: row.fulfillmentStatus,
  currency: row.currency,
  subtotal: Number(row.subtotal),
  discountTotal: Number(row.discountTotal),
  shippingTotal: Number(row.shippingTotal),
  total: Number(row.total),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

export function toOrderDto(row: OrderRow, items: OrderItemRow[], fulfillments: FulfillmentRow[], trackingUrl: string) {
  return {
    ...toOrderSummaryDto(row),
    paymentProvider: row.paymentProvider,
    discountCode: row.discountCode,
    shippingMethod: row.shippingMethod,
    shippingAddress: row.shippingAddress,
    billingAddress: row.billingAddress,
    items: items.map(toOrderItemDto),
    fulfillments: fulfillments.map(toFulfillmentDto),
    trackingUrl
  };
}
