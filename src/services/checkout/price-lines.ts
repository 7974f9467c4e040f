import type { Sql } from '../../db/transaction.js';
import { validationFailed } from '../../errors.js';
import { discountProblem, findDiscountByCode, notApplicable, type DiscountRecord } from '../discounts/index.js';
import type { ShippingMethod } from '../stores/index.js';
import { shipsTo } from './shipping.js';
import { computeTotals, shippingPrice, type AppliedDiscount, type PricedLine, type Totals } from './totals.js';

/** What is being priced outside a cart (a draft order, an order edit): lines, a discount, shipping. */
export interface PriceRequest {
  lines: PricedLine[];
  /** A store discount code, checked like a cart's (422 discount_not_applicable with the reason). */
  discountCode?: string | null;
  /** A discount the member gives by hand (no code, no usage counted). */
  manualDiscount?: AppliedDiscount | null;
  /** One of the store's shipping methods (rates), by id; must ship to `country` when known. */
  shippingRateId?: string | null;
  /** Shipping at a price the member names. */
  customShipping?: { title: string; price: number } | null;
  country?: string | null;
}

export interface PricedRequest {
  totals: Totals;
  discount: DiscountRecord | null;
  /** The shipping as an order keeps it (`shippingMethod`): the rate's id, or null for custom shipping. */
  shipping: { id: string | null; name: string; price: number } | null;
}

/**
 * Prices lines exactly as a cart is priced (computeTotals, the discount rules, the shipping
 * methods' prices and countries): the one place a draft order or an order edit gets its totals,
 * so what changes a checkout's totals (taxes) changes theirs too. `path` prefixes error details.
 */
export async function priceLines(db: Sql, store: { id: string; shippingMethods: ShippingMethod[] }, request: PriceRequest): Promise<PricedRequest> {
  const subtotal = request.lines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0);
  let discount: DiscountRecord | null = null;
  let applied: AppliedDiscount | null = request.manualDiscount ?? null;
  if (request.discountCode) {
    const record = await findDiscountByCode(db, store.id, request.discountCode);
    const problem = discountProblem(record, subtotal);
    if (problem) throw notApplicable(problem);
    discount = record!;
    applied = { type: record!.type, value: record!.value };
  }
  let choice: { price: number; freeOverAmount: number | null } | null = null;
  let shipping: PricedRequest['shipping'] = null;
  if (request.shippingRateId) {
    const method = store.shippingMethods.find((m) => m.id === request.shippingRateId);
    if (!method) throw validationFailed([{ path: 'shippingRateId', message: 'not one of the store shipping rates' }]);
    if (!shipsTo(method, request.country ?? null)) throw validationFailed([{ path: 'shippingRateId', message: `${method.name} does not ship to ${request.country}` }]);
    choice = { price: method.price, freeOverAmount: method.freeOverAmount ?? null };
    shipping = { id: method.id, name: method.name, price: shippingPrice(choice, subtotal) };
  } else if (request.customShipping) {
    choice = { price: request.customShipping.price, freeOverAmount: null };
    shipping = { id: null, name: request.customShipping.title, price: request.customShipping.price };
  }
  const totals = computeTotals(request.lines, applied, choice);
  if (shipping) shipping = { ...shipping, price: totals.shippingTotal };
  return { totals, discount, shipping };
}
