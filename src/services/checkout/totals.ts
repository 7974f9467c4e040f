import { allocateDiscount, noTax, sumTax, type TaxLine, type TaxResult, type TaxableInput } from '../taxes/index.js';

/**
 * Cart and order money, all in integer minor units of the store currency.
 *
 * Rounding rules (one per kind of amount, all HALF UP to the minor unit):
 * - A percentage discount is taken once on the merchandise subtotal (`floor((subtotal × basisPoints
 *   + 5000) / 10000)`), never per line. A fixed amount is capped at the subtotal. Discounts never touch
 *   shipping, except `free_shipping`, which makes the shipping total 0.
 * - The discount is then spread over the lines in proportion to their totals (each share rounded
 *   down, the cents left over to the largest line): a line's taxable amount is its total less its share.
 * - Tax is computed PER LINE (each line and the shipping line), rounded half up (services/taxes/compute.ts):
 *   added on top for exclusive prices, extracted from the gross (`gross − round(gross / (1 + rate))`)
 *   for inclusive prices (`pricesIncludeTax`), where shipping prices include it too.
 * `total = subtotal − discountTotal + shippingTotal (+ taxTotal when prices exclude tax)`.
 * A store without tax regions (and the built-in provider) has taxTotal 0 and the totals of before.
 */
export interface PricedLine {
  unitPrice: number;
  quantity: number;
  /** The variant's tax class (null: the region's default rate). */
  taxClass?: string | null;
}

/** How a cart is taxed: whether prices include tax, and the tax lines for its taxable amounts (a provider's answer). */
export interface Taxer {
  pricesIncludeTax: boolean;
  compute(input: TaxableInput): TaxResult;
}

export const NO_TAX: Taxer = { pricesIncludeTax: false, compute: noTax };

export interface AppliedDiscount {
  type: 'percentage' | 'fixed_amount' | 'free_shipping';
  value: number | null;
}

export interface ShippingChoice {
  price: number;
  freeOverAmount: number | null;
}

export interface Totals {
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  taxTotal: number;
  total: number;
  pricesIncludeTax: boolean;
}

/** Per line: its share of the discount and its tax lines; the shipping line's tax lines; what was asked of the taxer. */
export interface TaxDetail {
  lineDiscounts: number[];
  lineTaxes: TaxLine[][];
  shippingTaxLines: TaxLine[];
  taxable: TaxableInput;
  reference: string | null;
}

export const lineTotal = (line: PricedLine) => line.unitPrice * line.quantity;

export function percentageOf(amount: number, percent: number): number {
  const basisPoints = Math.round(percent * 100);
  return Math.floor((amount * basisPoints + 5000) / 10000);
}

/** What a shipping method costs for this subtotal (before discounts): free at or over `freeOverAmount`. */
export function shippingPrice(method: ShippingChoice, subtotal: number): number {
  return method.freeOverAmount !== null && method.freeOverAmount !== undefined && subtotal >= method.freeOverAmount ? 0 : method.price;
}

/** What is taxed in a cart: each line's total less its discount share, keyed by `keys` (the cart lines' ids), and the shipping charged. */
export function taxableOf(lines: PricedLine[], keys: string[], discount: AppliedDiscount | null, shipping: ShippingChoice | null, pricesIncludeTax: boolean) {
  const totals = lines.map(lineTotal);
  const subtotal = totals.reduce((sum, amount) => sum + amount, 0);
  let discountTotal = 0;
  if (discount?.type === 'percentage') discountTotal = Math.min(subtotal, percentageOf(subtotal, Number(discount.value ?? 0)));
  if (discount?.type === 'fixed_amount') discountTotal = Math.min(subtotal, Math.round(Number(discount.value ?? 0)));
  let shippingTotal = shipping ? shippingPrice(shipping, subtotal) : 0;
  if (discount?.type === 'free_shipping') shippingTotal = 0;
  const lineDiscounts = allocateDiscount(totals, discountTotal);
  const taxable: TaxableInput = {
    pricesIncludeTax,
    lines: lines.map((line, index) => ({ key: keys[index] ?? String(index), amount: totals[index]! - lineDiscounts[index]!, quantity: line.quantity, taxClass: line.taxClass ?? null })),
    shipping: shippingTotal
  };
  return { subtotal, discountTotal, shippingTotal, lineDiscounts, taxable };
}

/**
 * The cart's totals and tax detail. `keys` name the lines for the taxer (cart line ids); without a
 * taxer nothing is taxed.
 */
export function computeTotals(
  lines: PricedLine[],
  discount: AppliedDiscount | null,
  shipping: ShippingChoice | null,
  taxer: Taxer = NO_TAX,
  keys: string[] = []
): Totals & { tax: TaxDetail } {
  const base = taxableOf(lines, keys, discount, shipping, taxer.pricesIncludeTax);
  const result = taxer.compute(base.taxable);
  const taxTotal = result.lines.reduce((sum, taxLines) => sum + sumTax(taxLines), 0) + sumTax(result.shipping);
  const net = base.subtotal - base.discountTotal + base.shippingTotal;
  return {
    subtotal: base.subtotal,
    discountTotal: base.discountTotal,
    shippingTotal: base.shippingTotal,
    taxTotal,
    total: taxer.pricesIncludeTax ? net : net + taxTotal,
    pricesIncludeTax: taxer.pricesIncludeTax,
    tax: { lineDiscounts: base.lineDiscounts, lineTaxes: result.lines, shippingTaxLines: result.shipping, taxable: base.taxable, reference: result.reference ?? null }
  };
}

const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

export const currencyExponent = (currency: string) => (ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2);

/** "49.97 USD": for emails only; the API always speaks minor units. */
export function formatMoney(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  return `${(amount / 10 ** exponent).toFixed(exponent)} ${currency}`;
}
