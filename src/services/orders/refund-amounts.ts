import { conflict, validationFailed } from '../../errors.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { paymentDisputed } from './disputes.js';
import { divideHalfUp, proportionalShare, type TaxLine } from '../taxes/index.js';

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
  /** The tax in `amount` (added on top of the item's share for exclusive prices, part of it for inclusive). */
  taxAmount?: number;
}

export interface RefundCalculation {
  amount: number;
  itemsAmount: number;
  shipping: number;
  items: RefundLine[];
  /** What could still be refunded before this refund. */
  refundable: number;
  /** The tax given back (part of amount), and per tax line (jurisdiction, name, rate) for the report. */
  taxAmount: number;
  taxLines: TaxLine[];
}

/** What refunds already hold of an order (not failed ones): in flight, of shipping, of tax. */
export interface CommittedRefunds {
  pending: number;
  shippingRefunded: number;
  taxRefunded?: number;
  /** What the total holds that was never paid: a balance link open or voided (draft-orders' uncollectedOf). */
  uncollected?: number;
  /** A dispute is open on a charge of the order: Stripe refuses its refunds until it closes. */
  refundsRefused?: boolean;
}

/**
 * What is left to refund: the total less what was never collected, what lost disputes took back
 * (`amountChargedBack`: the customer's bank returned it), what was refunded and what refunds in
 * flight hold.
 */
export function refundableOf(order: Pick<OrderRow, 'total' | 'amountRefunded' | 'amountChargedBack'>, committed: Pick<CommittedRefunds, 'pending' | 'uncollected'>): number {
  return Number(order.total) - (committed.uncollected ?? 0) - Number(order.amountChargedBack ?? 0) - Number(order.amountRefunded) - committed.pending;
}

const taxKey = (line: TaxLine) => `${line.jurisdiction}|${line.name}|${line.rate}`;

/** Tax lines added up by jurisdiction, name and rate. */
export function mergeTaxLines(lines: TaxLine[]): TaxLine[] {
  const merged = new Map<string, TaxLine>();
  for (const line of lines) {
    const key = taxKey(line);
    const entry = merged.get(key);
    if (entry) entry.amount += line.amount;
    else merged.set(key, { ...line });
  }
  return [...merged.values()].filter((line) => line.amount !== 0);
}

/** `amount` spread over `lines` in proportion to their amounts (shares rounded down, the rest to the largest). */
export function spreadOver(lines: TaxLine[], amount: number): TaxLine[] {
  const whole = lines.reduce((sum, line) => sum + line.amount, 0);
  if (whole <= 0 || amount <= 0) return [];
  const shares = lines.map((line) => ({ ...line, amount: Math.floor((amount * line.amount) / whole) }));
  const left = amount - shares.reduce((sum, line) => sum + line.amount, 0);
  const largest = lines.reduce((best, line, index) => (line.amount > lines[best]!.amount ? index : best), 0);
  shares[largest]!.amount += left;
  return shares.filter((line) => line.amount !== 0);
}

/** The tax the order collected that refunds have not given back yet. */
const taxLeftOf = (order: Pick<OrderRow, 'taxTotal'>, taxRefunded: number) => Math.max(0, Number(order.taxTotal ?? 0) - taxRefunded);

/** Every tax line of the order (its items' and its shipping's), added up by jurisdiction, name and rate. */
const orderTaxLines = (order: Pick<OrderRow, 'shippingTaxLines'>, items: Array<Pick<OrderItemRow, 'taxLines'>>) =>
  mergeTaxLines([...items.flatMap((item) => item.taxLines ?? []), ...(order.shippingTaxLines ?? [])]);

/**
 * The tax in a refund given as an amount (an admin refund's `amount`, or a refund made in Stripe's
 * dashboard): in proportion to the order's total (half up), never more than the tax left to give
 * back, spread over the order's tax lines in proportion.
 */
export function amountRefundTax(
  order: Pick<OrderRow, 'total' | 'taxTotal' | 'shippingTaxLines'>,
  items: Array<Pick<OrderItemRow, 'taxLines'>>,
  taxRefunded: number,
  amount: number
): { taxAmount: number; taxLines: TaxLine[] } {
  const share = Number(order.total) > 0 ? divideHalfUp(Math.max(0, amount) * Number(order.taxTotal ?? 0), Number(order.total)) : 0;
  const taxAmount = Math.min(share, taxLeftOf(order, taxRefunded));
  return { taxAmount, taxLines: spreadOver(orderTaxLines(order, items), taxAmount) };
}

export const REFUNDABLE_STATES = ['paid', 'partially_refunded'];

export const notRefundable = (order: Pick<OrderRow, 'paymentStatus'>) =>
  conflict('order_not_refundable', `The payment is ${order.paymentStatus}: only a paid payment can be refunded`, [{ path: 'orderId', message: `payment is ${order.paymentStatus}` }]);

/**
 * The amounts of a refund: each item's share of what was paid for it (its units at the unit price,
 * less its share of an order discount, rounded half up), plus shipping; `amount` overrides the sum.
 * Never more than is left to refund (refundableOf: the total, less what was never collected, what was
 * refunded and what refunds in flight hold).
 */
export function calculateRefund(
  order: OrderRow,
  items: OrderItemRow[],
  committed: CommittedRefunds,
  input: RefundInput
): RefundCalculation {
  if (committed.refundsRefused) throw paymentDisputed();
  // Tax (docs/taxes.md): each refunded unit gives back its line's tax in proportion, cumulatively
  // (the share of all units refunded so far less the share already given), so refunding every unit
  // gives back the line's tax to the cent. Exclusive prices add it to the amount; inclusive prices
  // already hold it. Over all refunds, never more than the tax collected.
  const inclusive = Boolean(order.pricesIncludeTax);
  const refundTax: TaxLine[] = [];
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
    // The line's tax is that of its billed units (an exchange's units left the bill and its tax).
    const billed = item.quantity - (item.exchangedQuantity ?? 0);
    const itemTax = (item.taxLines ?? []).map((tax) => ({ ...tax, amount: proportionalShare(tax.amount, item.refundedQuantity, quantity, billed) }));
    const taxAmount = itemTax.reduce((sum, tax) => sum + tax.amount, 0);
    refundTax.push(...itemTax);
    lines.push({ orderItemId, variantId: item.variantId, quantity, restock, amount: Math.round(item.unitPrice * quantity * paidShare) + (inclusive ? 0 : taxAmount), taxAmount });
  }
  const shipping = input.shipping ?? 0;
  const shippingLeft = Number(order.shippingTotal) - committed.shippingRefunded;
  if (shipping > shippingLeft) throw conflict('refund_exceeds_payment', `only ${shippingLeft} of shipping left to refund`, [{ path: 'shipping', message: `${shippingLeft} left to refund` }]);
  const shippingTax = (order.shippingTaxLines ?? []).map((tax) => ({ ...tax, amount: proportionalShare(tax.amount, committed.shippingRefunded, shipping, Number(order.shippingTotal)) }));
  refundTax.push(...shippingTax);
  const shippingTaxAmount = inclusive ? 0 : shippingTax.reduce((sum, tax) => sum + tax.amount, 0);
  const itemsAmount = lines.reduce((sum, line) => sum + line.amount, 0);
  const amount = input.amount ?? itemsAmount + shipping + shippingTaxAmount;
  // An explicit amount gives back tax in proportion to the total paid; the cap keeps the sum within what was collected.
  let taxLines = mergeTaxLines(refundTax);
  let taxAmount = taxLines.reduce((sum, tax) => sum + tax.amount, 0);
  const taxLeft = taxLeftOf(order, committed.taxRefunded ?? 0);
  if (input.amount !== undefined) ({ taxAmount, taxLines } = amountRefundTax(order, items, committed.taxRefunded ?? 0, input.amount));
  else if (taxAmount > taxLeft) {
    taxAmount = taxLeft;
    taxLines = spreadOver(orderTaxLines(order, items), taxAmount);
  }
  if (amount <= 0) throw validationFailed([{ path: 'amount', message: 'nothing to refund: give items, shipping or an amount above zero' }]);
  const refundable = refundableOf(order, committed);
  if (amount > refundable) {
    throw conflict('refund_exceeds_payment', `Only ${Math.max(refundable, 0)} is left to refund`, [{ path: 'amount', message: `${amount} exceeds the ${Math.max(refundable, 0)} left to refund` }]);
  }
  return { amount, itemsAmount, shipping, items: lines, refundable, taxAmount, taxLines };
}
