/**
 * Cart and order money, all in integer minor units of the store currency.
 *
 * Rounding rule (the only one): a percentage discount is taken once on the merchandise subtotal
 * and rounded half up to the minor unit (`floor((subtotal × basisPoints + 5000) / 10000)`), never
 * per line. A fixed amount is capped at the subtotal. Discounts never touch shipping, except
 * `free_shipping`, which makes the shipping total 0. `total = subtotal − discountTotal + shippingTotal`.
 */
export interface PricedLine {
  unitPrice: number;
  quantity: number;
}

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
  total: number;
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

export function computeTotals(lines: PricedLine[], discount: AppliedDiscount | null, shipping: ShippingChoice | null): Totals {
  const subtotal = lines.reduce((sum, line) => sum + lineTotal(line), 0);
  let discountTotal = 0;
  if (discount?.type === 'percentage') discountTotal = Math.min(subtotal, percentageOf(subtotal, Number(discount.value ?? 0)));
  if (discount?.type === 'fixed_amount') discountTotal = Math.min(subtotal, Math.round(Number(discount.value ?? 0)));
  let shippingTotal = shipping ? shippingPrice(shipping, subtotal) : 0;
  if (discount?.type === 'free_shipping') shippingTotal = 0;
  return { subtotal, discountTotal, shippingTotal, total: subtotal - discountTotal + shippingTotal };
}

const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

export const currencyExponent = (currency: string) => (ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2);

/** "49.97 USD": for emails only; the API always speaks minor units. */
export function formatMoney(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  return `${(amount / 10 ** exponent).toFixed(exponent)} ${currency}`;
}
