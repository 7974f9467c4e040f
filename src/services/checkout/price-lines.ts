import type { Sql } from '../../db/transaction.js';
import { conflict, validationFailed } from '../../errors.js';
import { discountProblem, findDiscountByCode, notApplicable, type DiscountRecord } from '../discounts/index.js';
import type { AppContext } from '../../context.js';
import { cachedZones, checkRate, isApplied } from '../shipping/index.js';
import { cachedStore } from '../stores/index.js';
import { taxProviderOf, type TaxRequest, type TaxResult } from '../taxes/index.js';
import { storeTaxes, taxerOf } from './cart-taxes.js';
import { cartContents } from './shipping.js';
import { computeTotals, type AppliedDiscount, type PricedLine, type TaxDetail, type Taxer, type Totals } from './totals.js';

/** A remote provider's answer for these taxable amounts (JSON), computed ahead of a locked write. */
export interface TaxQuote {
  taxable: string;
  result: TaxResult;
}

/**
 * How the lines are taxed: at `address` (where they ship), nothing for an exempt customer, with
 * the store's tax provider and rate table. `pricesIncludeTax` and `provider` default to the
 * store's settings (an order's edit passes the ones the order was placed with).
 */
export interface PriceTax {
  address: TaxRequest['address'];
  exempt: boolean;
  pricesIncludeTax?: boolean;
  provider?: string | null;
  /** A remote provider's answer computed before (priceLines' `quote`): used when the amounts are the same. */
  quote?: TaxQuote | null;
  /** Set under a lock: a remote provider is not called; amounts other than the quote's are 409 (changed meanwhile). */
  noRemoteCall?: boolean;
}

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
  /** Absent: no tax (NO_TAX). */
  tax?: PriceTax | null;
}

export interface PricedRequest {
  totals: Totals;
  /** Each line's discount share and tax lines, the shipping's tax lines, the provider's reference. */
  tax: TaxDetail & { provider: string | null };
  /** A remote provider's answer (Stripe Tax), to price the same amounts again under a lock without calling it. */
  quote: TaxQuote | null;
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
  const store = await cachedStore(ctx, storeId);
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
  const keys = request.lines.map((_, index) => `line-${index}`);
  const { taxer, quote, provider } = await taxerFor(ctx, store, request, applied, choice, keys);
  const { tax, ...totals } = computeTotals(request.lines, applied, choice, taxer, keys);
  if (shipping) shipping = { ...shipping, price: totals.shippingTotal };
  return { totals, tax: { ...tax, provider }, discount, shipping, quote };
}

/**
 * The taxer of a hand-made order, as a checkout's: the built-in rates computed locally; a remote
 * provider (Stripe Tax) asked once for the taxable amounts (503 tax_provider_unavailable when it
 * fails), or its earlier answer reused when the amounts are the same (under a lock, never asked).
 */
async function taxerFor(
  ctx: AppContext,
  store: Awaited<ReturnType<typeof cachedStore>>,
  request: PriceRequest,
  applied: AppliedDiscount | null,
  choice: { price: number; freeOverAmount: number | null } | null,
  keys: string[]
): Promise<{ taxer: Taxer | undefined; quote: TaxQuote | null; provider: string | null }> {
  const asked = request.tax;
  if (!asked) return { taxer: undefined, quote: null, provider: null };
  const base = await storeTaxes(ctx, store);
  const pricesIncludeTax = asked.pricesIncludeTax ?? base.pricesIncludeTax;
  const providerName = asked.provider ?? store.taxProvider ?? 'rates';
  const provider = taxProviderOf(providerName);
  const address = asked.address?.country ? asked.address : null;
  if (provider.local || asked.exempt || !address || request.lines.length === 0) {
    return { taxer: taxerOf({ ...base, pricesIncludeTax, exempt: asked.exempt, address }, { shippingCountry: null }), quote: null, provider: provider.name };
  }
  // The taxable amounts, read with a taxer that taxes nothing, then the provider asked for exactly those.
  let taxable = '';
  const probe: Taxer = {
    pricesIncludeTax,
    compute: (input) => {
      taxable = JSON.stringify(input);
      return { lines: input.lines.map(() => []), shipping: [] };
    }
  };
  const { tax } = computeTotals(request.lines, applied, choice, probe, keys);
  let result: TaxResult;
  if (asked.quote && asked.quote.taxable === taxable) result = asked.quote.result;
  else if (asked.noRemoteCall) {
    throw conflict('conflict', 'The order changed while its tax was being computed; try again', [{ path: 'tax', message: 'changed during the tax calculation' }]);
  } else {
    result = await provider.calculate(ctx, { storeId: store.id, currency: store.currency, address, exempt: false, rules: base.rules, input: tax.taxable });
  }
  return { taxer: { pricesIncludeTax, compute: () => result }, quote: { taxable, result }, provider: provider.name };
}
