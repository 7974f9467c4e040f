import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { isTaxExempt, priceLines, type TaxQuote } from '../checkout/index.js';
import { divideHalfUp, sumTax, type TaxLine } from '../taxes/index.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { mergeTaxLines, spreadOver } from './refund-amounts.js';

/**
 * The money of an order edit or exchange (edits.ts): the order's lines after the change priced and
 * taxed as a checkout's, the totals before, and the tax an edit's refund gives back.
 */

/** How a higher total of a paid order is collected: by hand, or by a payment link (an order balance invoice). */
export type CollectChoice = 'mark_paid' | 'invoice';

export interface PlannedLine {
  /** null: a new line. */
  itemId: string | null;
  variantId: string | null;
  productId: string | null;
  title: string;
  sku: string | null;
  unitPrice: number;
  quantity: number;
  /** Units billed: quantity less those an exchange took back. */
  billed: number;
  taxClass: string | null;
  weightGrams: number | null;
  requiresShipping: boolean;
}

export interface Plan {
  kind: 'edit' | 'exchange';
  lines: PlannedLine[];
  removed: string[];
  returns: Array<{ orderItemId: string; quantity: number; restock: boolean }>;
  shippingRateId?: string;
  customShipping?: { title: string; price: number };
  collect?: CollectChoice;
  version?: number;
  notifyCustomer: boolean;
  reason: string | null;
}


/**
 * The order's totals after the plan, priced and taxed as a checkout prices (its discount and
 * shipping kept unless shipping is changed): every billed line taxed again at the order's shipping
 * address, with the prices-include-tax rule and provider the order was placed with, an exempt
 * customer paying none. `quote`/`noRemoteCall`: a remote provider's answer asked before the locks.
 * Per plan line (same order): its discount share and tax lines (none for a line no longer billed).
 */
export async function priceOf(ctx: AppContext, db: Sql, order: OrderRow, plan: Plan, tax: { quote?: TaxQuote | null; noRemoteCall?: boolean } = {}) {
  const code = order.discountCode
    ? ((await db('discounts').where({ storeId: order.storeId }).whereRaw('lower(code) = lower(?)', [order.discountCode]).first('type', 'value')) as { type: 'percentage' | 'fixed_amount' | 'free_shipping'; value: number | null } | undefined)
    : undefined;
  const discount = code ? { type: code.type, value: code.value } : Number(order.discountTotal) > 0 ? { type: 'fixed_amount' as const, value: Number(order.discountTotal) } : null;
  const keepShipping = order.shippingMethod ? { title: order.shippingMethod.name, price: Number(order.shippingTotal) } : null;
  const address = (order.shippingAddress ?? {}) as { country?: string; region?: string; postalCode?: string; city?: string; line1?: string };
  const billed = plan.lines.filter((line) => line.billed > 0);
  const priced = await priceLines(ctx, db, order.storeId, {
    lines: billed.map((line) => ({ unitPrice: line.unitPrice, quantity: line.billed, taxClass: line.taxClass, weightGrams: line.weightGrams, requiresShipping: line.requiresShipping })),
    manualDiscount: discount,
    shippingRateId: plan.shippingRateId ?? null,
    customShipping: plan.shippingRateId ? null : (plan.customShipping ?? keepShipping),
    country: address.country ?? null,
    region: address.region ?? null,
    postalCode: address.postalCode ?? null,
    tax: {
      address: address.country
        ? { country: address.country, region: address.region ?? null, ...(address.postalCode ? { postalCode: address.postalCode } : {}), ...(address.city ? { city: address.city } : {}), ...(address.line1 ? { line1: address.line1 } : {}) }
        : null,
      exempt: await isTaxExempt(db, order.storeId, order.email, order.customerId),
      pricesIncludeTax: Boolean(order.pricesIncludeTax),
      provider: order.taxProvider ?? null,
      quote: tax.quote ?? null,
      noRemoteCall: tax.noRemoteCall ?? false
    }
  });
  const shippingMethod = priced.shipping
    ? { id: priced.shipping.id ?? (plan.customShipping ? 'custom' : (order.shippingMethod?.id ?? 'custom')), name: priced.shipping.name, price: priced.shipping.price }
    : null;
  const perLine = new Map(billed.map((line, index) => [line, { discountAmount: priced.tax.lineDiscounts[index] ?? 0, taxLines: priced.tax.lineTaxes[index] ?? [] }]));
  const lineTax = plan.lines.map((line) => perLine.get(line) ?? { discountAmount: 0, taxLines: [] as TaxLine[] });
  return { totals: priced.totals, shippingMethod, lineTax, shippingTaxLines: priced.tax.shippingTaxLines, quote: priced.quote };
}

export const totalsOf = (order: OrderRow) => ({
  subtotal: Number(order.subtotal),
  discountTotal: Number(order.discountTotal),
  shippingTotal: Number(order.shippingTotal),
  taxTotal: Number(order.taxTotal ?? 0),
  pricesIncludeTax: Boolean(order.pricesIncludeTax),
  total: Number(order.total)
});

/**
 * The tax an edit's refund gives back: what the edit took off the order's tax (each jurisdiction's
 * tax lines before less after, the decreases), in proportion when the refund is capped below the
 * difference (half up), spread over those lines as a refund-order's amount is.
 */
export function editRefundTax(items: OrderItemRow[], order: OrderRow, after: { lineTax: Array<{ taxLines: TaxLine[] }>; shippingTaxLines: TaxLine[]; taxTotal: number }, amount: number, difference: number) {
  const before = [...items.flatMap((item) => item.taxLines ?? []), ...(order.shippingTaxLines ?? [])];
  const now = [...after.lineTax.flatMap((line) => line.taxLines), ...after.shippingTaxLines].map((line) => ({ ...line, amount: -line.amount }));
  const decreases = mergeTaxLines([...before, ...now]).filter((line) => line.amount > 0);
  let taxAmount = Math.max(0, Number(order.taxTotal ?? 0) - after.taxTotal);
  if (amount < -difference) taxAmount = divideHalfUp(taxAmount * amount, -difference);
  const taxLines = taxAmount > 0 && sumTax(decreases) === taxAmount ? decreases : spreadOver(decreases, taxAmount);
  return { taxAmount: sumTax(taxLines), taxLines };
}

