import type { Sql } from '../../db/transaction.js';
import { validationFailed } from '../../errors.js';
import { discountProblem, findDiscountByCode, notApplicable, type DiscountRecord } from '../discounts/index.js';
import type { AppContext } from '../../context.js';
import { cachedZones, checkRate, isApplied } from '../shipping/index.js';
import { cartContents } from './shipping.js';
import { computeTotals, type AppliedDiscount, type PricedLine, type Totals } from './totals.js';

/** What is being priced outside a cart (a draft order, an order edit): lines, a discount, shipping. */
export interface PriceRequest {
  /** Lines with their weight and whether they ship, when known (a custom line: none, ships). */
  lines: Array<PricedLine & { weightGrams?: number | null; requiresShipping?: boolean }>;
  /** A store discount code, checked like a cart's (422 discount_not_applicable with the reason). */
  discountCode?: string | null;
  /** A discount the member gives by hand (no code, no usage counted). */
  manualDiscount?: AppliedDiscount | null;
  /** One of the store's shipping rates (its zones'), by id; must apply to `country` and the lines (weight bands). */
  shippingRateId?: string | null;
  /** Shipping at a price the member names. */
  customShipping?: { title: string; price: number } | null;
  country?: string | null;
  region?: string | null;
  postalCode?: string | null;
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
export async function priceLines(ctx: AppContext, db: Sql, storeId: string, request: PriceRequest): Promise<PricedRequest> {
  const store = { id: storeId };
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
    const contents = cartContents(
      request.lines.map((line) => ({ quantity: line.quantity, weightGrams: line.weightGrams ?? null, requiresShipping: line.requiresShipping ?? true })),
      subtotal
    );
    const destination = { country: request.country?.trim() || null, region: request.region ?? null, postalCode: request.postalCode ?? null };
    const result = checkRate(await cachedZones(ctx, storeId), request.shippingRateId, destination, contents);
    if (!isApplied(result)) {
      const message = result.reason === 'this shipping method is no longer offered' ? 'not one of the store shipping rates' : result.reason;
      throw validationFailed([{ path: 'shippingRateId', message }]);
    }
    choice = { price: result.price, freeOverAmount: null };
    shipping = { id: result.rate.id, name: result.rate.name, price: result.price };
  } else if (request.customShipping) {
    choice = { price: request.customShipping.price, freeOverAmount: null };
    shipping = { id: null, name: request.customShipping.title, price: request.customShipping.price };
  }
  // Drafts and edits are priced without tax for now (NO_TAX, computeTotals' default taxer): their
  // totals are what they were before taxes; taxing them (the store's rates at `country`) is a follow-up.
  const { tax: _tax, ...totals } = computeTotals(request.lines, applied, choice);
  if (shipping) shipping = { ...shipping, price: totals.shippingTotal };
  return { totals, discount, shipping };
}
