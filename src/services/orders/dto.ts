import type { TaxLine } from '../taxes/index.js';

/** An `orders` row: one declaration of the table's columns, for every query that reads it. */
export interface OrderRow {
  id: string;
  storeId: string;
  number: number;
  customerId: string | null;
  checkoutSessionId: string | null;
  email: string;
  status: 'open' | 'completed' | 'cancelled';
  /** The payment state machine's states (services/payments/payment-state.ts). */
  paymentStatus: 'pending' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded' | 'voided' | 'failed';
  /** Refunded so far (minor units): the whole total once `refunded`. */
  amountRefunded: number;
  /** What edits collected by hand (`collect: mark_paid`): on a Stripe order, a payment apart from the PaymentIntent. */
  collectedByHand?: number | string;
  /** What lost disputes took back of its payments (disputes.ts). */
  amountChargedBack?: number | string;
  /** Stripe's `created` and id of the last event applied to the payment (payments/payment-state.ts orders them). */
  paymentEventCreated: Date | null;
  paymentEventId: string | null;
  fulfillmentStatus: 'unfulfilled' | 'partially_fulfilled' | 'fulfilled';
  paymentProvider: string;
  paymentIntentId: string | null;
  currency: string;
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  total: number;
  /** Tax charged (included in the prices when pricesIncludeTax, else on top of them); docs/taxes.md. */
  taxTotal: number;
  pricesIncludeTax: boolean;
  shippingTaxLines: TaxLine[];
  /** The tax provider and its calculation (Stripe Tax), and the provider's transaction once recorded. */
  taxProvider: string | null;
  taxReference: string | null;
  taxTransactionId: string | null;
  /** The calculation the transaction was recorded from: an edit's new `taxReference` differs until tax-sync replaces it. */
  taxTransactionCalculation?: string | null;
  taxTransactionRefunds?: string[];
  discountCode: string | null;
  shippingMethod: { id: string; name: string; price: number } | null;
  shippingAddress: Record<string, unknown>;
  billingAddress: Record<string, unknown> | null;
  trackingToken: string;
  cancelledAt: Date | null;
  cancelReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An `order_items` row. */
export interface OrderItemRow {
  id: string;
  orderId: string;
  storeId: string;
  productId: string | null;
  variantId: string | null;
  title: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
  fulfilledQuantity: number;
  refundedQuantity: number;
  returnedQuantity: number;
  /** Units put back on the shelf so far, by any cancel, refund or return (never more than `quantity`). */
  restockedQuantity: number;
  /** Units an exchange took back: they leave what the order bills. */
  exchangedQuantity?: number;
  position: number;
  taxLines: TaxLine[];
  taxAmount: number;
  /** The item's share of an order discount. */
  discountAmount: number;
}

/** A `fulfillments` row. */
export interface FulfillmentRow {
  id: string;
  storeId: string;
  orderId: string;
  items: Array<{ orderItemId: string; quantity: number }>;
  trackingCompany: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  notifyCustomer: boolean;
  createdAt: Date;
}

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
  fulfilledQuantity: row.fulfilledQuantity,
  refundedQuantity: row.refundedQuantity ?? 0,
  returnedQuantity: row.returnedQuantity ?? 0,
  restockedQuantity: row.restockedQuantity ?? 0,
  discountAmount: Number(row.discountAmount ?? 0),
  taxLines: taxLinesDto(row.taxLines)
});

export const taxLinesDto = (lines: TaxLine[] | null | undefined) => (lines ?? []).map(({ name, rate, amount, jurisdiction }) => ({ name, rate, amount, jurisdiction }));

/** The share of a refund one payment gives back (refund-payments.ts); `legacy`: a row from before parts were kept. */
export interface RefundPart {
  provider: 'stripe' | 'manual';
  paymentIntentId: string | null;
  amount: number;
  stripeRefundId: string | null;
  legacy?: boolean;
  /** Times Stripe refused this part (a retry asks again under a new idempotency key: refundPartKey). */
  refusals?: number;
}

/** An `order_refunds` row. */
export interface RefundRow {
  id: string;
  storeId: string;
  orderId: string;
  status: 'pending' | 'succeeded' | 'failed';
  source: 'admin' | 'stripe' | 'edit';
  amount: number | string;
  shipping: number | string;
  /** Tax given back (part of `amount`), and per tax line of the order (for the tax report). */
  taxAmount: number | string;
  taxLines: TaxLine[];
  /** `restockedQuantity` is written when the refund settles (rows settled before it was kept: all of a `restock` line). */
  items: Array<{ orderItemId: string; variantId: string | null; quantity: number; restock: boolean; amount: number; restockedQuantity?: number }>;
  reason: string | null;
  notifyCustomer: boolean;
  stripeRefundId: string | null;
  /** The payments it went to, newest first (`[]` on rows from before: the order's first payment). */
  payments: RefundPart[];
  returnId: string | null;
  userId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const toRefundDto = (row: RefundRow) => ({
  id: row.id,
  status: row.status,
  source: row.source,
  amount: Number(row.amount),
  shipping: Number(row.shipping),
  taxAmount: Number(row.taxAmount ?? 0),
  items: row.items.map((line) => ({
    orderItemId: line.orderItemId,
    quantity: line.quantity,
    restock: line.restock,
    restockedQuantity: line.restockedQuantity ?? (row.status === 'succeeded' && line.restock ? line.quantity : 0),
    amount: line.amount
  })),
  reason: row.reason,
  stripeRefundId: row.stripeRefundId,
  payments: (row.payments ?? []).map((part) => ({ provider: part.provider, paymentIntentId: part.paymentIntentId, amount: Number(part.amount), stripeRefundId: part.stripeRefundId })),
  returnId: row.returnId,
  createdAt: row.createdAt
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
  taxTotal: Number(row.taxTotal ?? 0),
  total: Number(row.total),
  pricesIncludeTax: Boolean(row.pricesIncludeTax),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

export function toOrderDto(row: OrderRow, items: OrderItemRow[], fulfillments: FulfillmentRow[], trackingUrl: string, refunds: RefundRow[] = []) {
  return {
    ...toOrderSummaryDto(row),
    cancelledAt: row.cancelledAt ?? null,
    cancelReason: row.cancelReason ?? null,
    paymentProvider: row.paymentProvider,
    discountCode: row.discountCode,
    shippingMethod: row.shippingMethod,
    shippingTaxLines: taxLinesDto(row.shippingTaxLines),
    shippingAddress: row.shippingAddress,
    billingAddress: row.billingAddress,
    items: items.map(toOrderItemDto),
    fulfillments: fulfillments.map(toFulfillmentDto),
    refunds: refunds.map(toRefundDto),
    trackingUrl
  };
}
