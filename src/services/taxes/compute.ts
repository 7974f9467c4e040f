/**
 * Tax arithmetic, all in integer minor units (docs/taxes.md).
 *
 * Rounding rule (the only one): tax is computed PER LINE (each cart/order line and the shipping line,
 * never per unit and never on the order as a whole) and rounded HALF UP to the minor unit.
 * - Exclusive prices (US style): `tax = round(taxable × rate / 10000)`, added to the total.
 * - Inclusive prices (VAT style): the tax is extracted from the gross, `tax = gross − round(gross × 10000 / (10000 + rate))`,
 *   and the total does not change.
 * Rates are basis points (2000 = 20 %). The taxable amount of a line is its total less its share of an
 * order discount (allocateDiscount). A line with several tax lines (Stripe Tax: state + county) rounds each.
 */

/** One tax charged on a line: `rate` in basis points, `amount` in minor units; `jurisdiction` is 'US-CA', 'DE', … (for reports). */
export interface TaxLine {
  name: string;
  rate: number;
  amount: number;
  jurisdiction: string;
}

/** What is taxed: each line's taxable amount (after its discount share) and class, and the shipping charged. */
export interface TaxableInput {
  pricesIncludeTax: boolean;
  lines: Array<{ key: string; amount: number; quantity: number; taxClass: string | null }>;
  shipping: number;
}

/** The tax lines of each input line (same order) and of shipping. */
export interface TaxResult {
  lines: TaxLine[][];
  shipping: TaxLine[];
  /** The provider's reference for this calculation (Stripe Tax: the calculation id). */
  reference?: string | null;
}

export interface TaxRegionRule {
  country: string;
  region: string;
  name: string;
  rate: number;
  classRates: Record<string, number>;
  taxShipping: boolean;
}

export interface TaxAddress {
  country: string | null | undefined;
  region?: string | null;
}

/** a/b rounded half up, for a >= 0 and b > 0, in integers (exact below 2^53). */
export function divideHalfUp(a: number, b: number): number {
  return Math.floor((2 * a + b) / (2 * b));
}

/** a/b rounded half up for any sign of a (b > 0): half away from zero, so a refund mirrors its charge. */
const divideSigned = (a: number, b: number) => (a < 0 ? -divideHalfUp(-a, b) : divideHalfUp(a, b));

/** The tax in `amount` at `rate` basis points: added on top (exclusive) or extracted from it (inclusive). */
export function taxOf(amount: number, rate: number, inclusive: boolean): number {
  if (rate <= 0 || amount === 0) return 0;
  if (!inclusive) return divideSigned(amount * rate, 10_000);
  return amount - divideSigned(amount * 10_000, 10_000 + rate);
}

/** 'US-CA', 'us-ca' and 'CA' for country US all mean region 'CA'; '' is none. */
export function normalizeRegion(country: string | null | undefined, region: string | null | undefined): string {
  if (!region) return '';
  const upper = region.trim().toUpperCase();
  const prefix = `${(country ?? '').toUpperCase()}-`;
  return upper.startsWith(prefix) ? upper.slice(prefix.length) : upper.includes('-') ? upper.slice(upper.indexOf('-') + 1) : upper;
}

/** The rule for an address: the region's own entry beats its country's; null when the store taxes neither. */
export function matchRegion<T extends TaxRegionRule>(rules: readonly T[], address: TaxAddress | null): T | null {
  if (!address?.country || rules.length === 0) return null;
  const country = address.country.toUpperCase();
  const region = normalizeRegion(country, address.region);
  let countryRule: T | null = null;
  for (const rule of rules) {
    if (rule.country !== country) continue;
    if (region && rule.region === region) return rule;
    if (rule.region === '') countryRule = rule;
  }
  return countryRule;
}

export const jurisdictionOf = (rule: Pick<TaxRegionRule, 'country' | 'region'>) => (rule.region ? `${rule.country}-${rule.region}` : rule.country);

/** A rule's rate for a tax class: the class's own rate, else the default (an unknown class too). */
export const rateFor = (rule: TaxRegionRule, taxClass: string | null) => (taxClass && rule.classRates[taxClass] !== undefined ? rule.classRates[taxClass]! : rule.rate);

/** The built-in rate tables: one tax line per taxed line, at the matched rule's rate for the line's class. */
export function taxWithRule(rule: TaxRegionRule | null, input: TaxableInput): TaxResult {
  if (!rule) return { lines: input.lines.map(() => []), shipping: [] };
  const jurisdiction = jurisdictionOf(rule);
  const lineOf = (amount: number, rate: number): TaxLine[] => (rate > 0 ? [{ name: rule.name, rate, amount: taxOf(amount, rate, input.pricesIncludeTax), jurisdiction }] : []);
  return {
    lines: input.lines.map((line) => lineOf(line.amount, rateFor(rule, line.taxClass))),
    shipping: rule.taxShipping && input.shipping > 0 ? lineOf(input.shipping, rule.rate) : []
  };
}

/** No tax at all (no rule, an exempt customer): empty tax lines, same shape. */
export const noTax = (input: TaxableInput): TaxResult => ({ lines: input.lines.map(() => []), shipping: [] });

/**
 * An order-level discount spread over the lines in proportion to their totals, each share rounded
 * down; the cents left over go to the largest line (the first of equals). The shares add up to the
 * discount exactly and no share exceeds its line.
 */
export function allocateDiscount(lineTotals: number[], discount: number): number[] {
  const subtotal = lineTotals.reduce((sum, amount) => sum + amount, 0);
  if (discount <= 0 || subtotal <= 0) return lineTotals.map(() => 0);
  const capped = Math.min(discount, subtotal);
  const shares = lineTotals.map((amount) => Math.floor((capped * amount) / subtotal));
  const left = capped - shares.reduce((sum, share) => sum + share, 0);
  if (left > 0) {
    let largest = 0;
    lineTotals.forEach((amount, index) => {
      if (amount > lineTotals[largest]!) largest = index;
    });
    shares[largest]! += left;
  }
  return shares;
}

export const sumTax = (lines: TaxLine[]) => lines.reduce((sum, line) => sum + line.amount, 0);

/**
 * The part of `whole` that `part / of` of it is, cumulative so repeated partial refunds add up to
 * `whole` exactly: share(after) − share(before), each rounded half up.
 */
export function proportionalShare(whole: number, before: number, part: number, of: number): number {
  if (of <= 0 || whole === 0) return 0;
  const at = (n: number) => divideHalfUp(whole * Math.min(n, of), of);
  return at(before + part) - at(before);
}
