import { conflict, validationFailed } from '../../errors.js';
import type { OrderItemRow, OrderRow } from './dto.js';

export interface RefundInput {
  items?: Array<{ orderItemId: string; quantity: number; restock?: boolean }>;
  /** Shipping to refund, minor units (up to what was charged for it, less what was refunded of it). */
  shipping?: number;
  /** The amount to refund; absent: the items' share plus shipping. */
  amount?: number;
  reason: string;
  notifyCustomer?: boolean;
}

export interface RefundLine {
  orderItemId: string;
  variantId: string | null;
  quantity: number;
  restock: boolean;
  amount: number;
}

export interface RefundCalculation {
  amount: number;
  itemsAmount: number;
  shipping: number;
  items: RefundLine[];
  /** What could still be refunded before this refund. */
  refundable: number;
}

export const REFUNDABLE_STATES = ['paid', 'partially_refunded'];

export const notRefundable = (order: Pick<OrderRow, 'paymentStatus'>) =>
  conflict('order_not_refundable', `The payment is ${order.paymentStatus}: only a paid payment can be refunded`, [{ path: 'orderId', message: `payment is ${order.paymentStatus}` }]);

/**
 * The amounts of a refund: each item's share of what was paid for it (its units at the unit price,
 * less its share of an order discount, rounded half up), plus shipping; `amount` overrides the sum.
 * Never more than is left to refund (the total, less what was refunded and what refunds in flight hold).
 */
export function calculateRefund(
  order: OrderRow,
  items: OrderItemRow[],
  committed: { pending: number; shippingRefunded: number },
  input: RefundInput
): RefundCalculation {
  const byId = new Map(items.map((item) => [item.id, item]));
  const merged = new Map<string, { quantity: number; restock: boolean }>();
  (input.items ?? []).forEach((line, index) => {
    if (!byId.has(line.orderItemId)) throw validationFailed([{ path: `items.${index}.orderItemId`, message: 'not an item of this order' }]);
    const entry = merged.get(line.orderItemId) ?? { quantity: 0, restock: false };
    merged.set(line.orderItemId, { quantity: entry.quantity + line.quantity, restock: entry.restock || (line.restock ?? false) });
  });
  const subtotal = Number(order.subtotal);
  const paidShare = subtotal > 0 ? (subtotal - Number(order.discountTotal)) / subtotal : 0;
  const lines: RefundLine[] = [];
  for (const [orderItemId, { quantity, restock }] of merged) {
    const item = byId.get(orderItemId)!;
    // Units an exchange took back are no longer billed: nothing of them is left to refund.
    const left = item.quantity - item.refundedQuantity - (item.exchangedQuantity ?? 0);
    if (quantity > left) {
      throw conflict('refund_exceeds_payment', left === 0 ? `${item.title} is already refunded` : `only ${left} of ${item.title} left to refund`, [
        { path: `items.${orderItemId}`, message: `${left} left to refund` }
      ]);
    }
    lines.push({ orderItemId, variantId: item.variantId, quantity, restock, amount: Math.round(item.unitPrice * quantity * paidShare) });
  }
  const shipping = input.shipping ?? 0;
  const shippingLeft = Number(order.shippingTotal) - committed.shippingRefunded;
  if (shipping > shippingLeft) throw conflict('refund_exceeds_payment', `only ${shippingLeft} of shipping left to refund`, [{ path: 'shipping', message: `${shippingLeft} left to refund` }]);
  const itemsAmount = lines.reduce((sum, line) => sum + line.amount, 0);
  const amount = input.amount ?? itemsAmount + shipping;
  if (amount <= 0) throw validationFailed([{ path: 'amount', message: 'nothing to refund: give items, shipping or an amount above zero' }]);
  const refundable = Number(order.total) - Number(order.amountRefunded) - committed.pending;
  if (amount > refundable) {
    throw conflict('refund_exceeds_payment', `Only ${Math.max(refundable, 0)} is left to refund`, [{ path: 'amount', message: `${amount} exceeds the ${Math.max(refundable, 0)} left to refund` }]);
  }
  return { amount, itemsAmount, shipping, items: lines, refundable };
}
