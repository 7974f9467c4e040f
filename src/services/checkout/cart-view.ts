import type { Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { discountProblem, type DiscountRecord } from '../discounts/index.js';
import type { AppliedRate, RateRefusal, ShippingZone } from '../shipping/index.js';
import { cartContents, chosenRate, destinationOf } from './shipping.js';
import { computeTotals, lineTotal, type TaxDetail, type Totals } from './totals.js';
import { taxerOf, type CartTaxes } from './cart-taxes.js';
import type { TaxLine } from '../taxes/index.js';

export const CART_STATUSES = ['open', 'completed'] as const;

export interface CartRow {
  id: string;
  storeId: string;
  status: (typeof CART_STATUSES)[number];
  currency: string;
  email: string | null;
  discountId: string | null;
  discountCode: string | null;
  shippingMethodId: string | null;
  shippingCountry: string | null;
  /** ISO 3166-2 as the shopper gave it (`CA` or `US-CA`), or null; also the tax address's subdivision. */
  shippingRegion: string | null;
  shippingPostcode: string | null;
  /** The chosen rate a cart change made inapplicable, and why (cleared when a method is chosen). */
  shippingMethodDropped: ShippingMethodDropped | null;
  orderId: string | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface ShippingMethodDropped {
  id: string;
  reason: string;
}

export interface CartLine {
  id: string;
  variantId: string;
  productId: string;
  title: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
  inventoryQuantity: number;
  inventoryPolicy: 'deny' | 'continue';
  available: boolean;
  weightGrams: number | null;
  requiresShipping: boolean;
  taxClass: string | null;
}

export interface PricedCart {
  cart: CartRow;
  lines: CartLine[];
  discount: DiscountRecord | null;
  /** Why the attached discount does not apply right now (it then counts 0), or null. */
  discountIssue: string | null;
  shippingMethod: { id: string; name: string; price: number } | null;
  /** The chosen rate, applied to the cart's destination and contents; null when none is chosen or it does not apply. */
  shippingRate: AppliedRate | null;
  /** Why the cart's chosen rate (still set on the row) does not apply now; null when it does or none is chosen. */
  shippingRefusal: RateRefusal | null;
  /** The notice the cart shows: a refusal just found, or the one an earlier change stored. */
  shippingMethodDropped: ShippingMethodDropped | null;
  /** False when the cart has lines and none of them ships: no rate is needed. */
  shippingRequired: boolean;
  totals: Totals;
  tax: TaxDetail;
}

export const lineTitle = (productTitle: string, variantTitle: string) =>
  !variantTitle || /^default( title)?$/i.test(variantTitle) || variantTitle === productTitle ? productTitle : `${productTitle} - ${variantTitle}`;

/**
 * A cart's lines at current prices, one row per line, keys as the line's fields; `cartId` is an SQL
 * expression. Both the plain read and the JSON one inside a cart update (cart-rows.ts) select it.
 */
export const lineRowsSql = (cartId: string) =>
  `select i.id, i.variant_id as "variantId", v.product_id as "productId", i.quantity, v.price as "unitPrice", v.sku,
          v.title as "variantTitle", p.title as "productTitle", v.inventory_quantity as "inventoryQuantity",
          v.inventory_policy as "inventoryPolicy", v.archived_at is null and p.status = 'active' as available, i.created_at as "addedAt",
          v.weight_grams as "weightGrams", v.requires_shipping as "requiresShipping", v.tax_class as "taxClass"
     from cart_items i join product_variants v on v.store_id = i.store_id and v.id = i.variant_id join products p on p.store_id = v.store_id and p.id = v.product_id
    where i.cart_id = ${cartId}`;

export interface LineRow {
  id: string;
  variantId: string;
  productId: string;
  quantity: number;
  unitPrice: number;
  sku: string | null;
  variantTitle: string;
  productTitle: string;
  inventoryQuantity: number;
  inventoryPolicy: 'deny' | 'continue';
  available: boolean;
  weightGrams: number | null;
  requiresShipping: boolean;
  taxClass?: string | null;
}

export const toCartLine = (row: LineRow): CartLine => ({
  id: row.id,
  variantId: row.variantId,
  productId: row.productId,
  title: lineTitle(row.productTitle, row.variantTitle),
  sku: row.sku,
  quantity: row.quantity,
  unitPrice: row.unitPrice,
  lineTotal: lineTotal(row),
  inventoryQuantity: row.inventoryQuantity,
  inventoryPolicy: row.inventoryPolicy,
  available: row.available,
  weightGrams: row.weightGrams,
  requiresShipping: row.requiresShipping,
  taxClass: row.taxClass ?? null
});

const LINES_SQL = `${lineRowsSql('?')} order by i.created_at, i.id`;

/** The cart's lines at current prices, in the order they were added; one (prepared) query. */
async function loadLines(db: Sql, cartId: string): Promise<CartLine[]> {
  const result = await db.raw(LINES_SQL, [cartId]).options(PREPARED);
  return (result.rows as LineRow[]).map(toCartLine);
}

/**
 * Prices a cart: lines, the discount if it still applies, the chosen shipping rate if it still
 * applies to the cart's destination and contents (the shipping module's rules), totals.
 * `knownLines` skips the read when the caller already knows them (a cart just made is empty).
 */
export async function priceCart(db: Sql, cart: CartRow, zones: ShippingZone[], knownLines: CartLine[] | undefined, taxes: CartTaxes): Promise<PricedCart> {
  const [lines, discount] = await Promise.all([
    knownLines ?? loadLines(db, cart.id),
    cart.discountId ? (db('discounts').where({ id: cart.discountId, storeId: cart.storeId }).first() as Promise<DiscountRecord | undefined>) : null
  ]);
  const subtotal = lines.reduce((sum, line) => sum + line.lineTotal, 0);
  const discountIssue = cart.discountId ? discountProblem(discount ?? undefined, subtotal) : null;
  const contents = cartContents(lines, subtotal);
  const { applied, refusal } = chosenRate(zones, cart.shippingMethodId, destinationOf(cart), contents);
  const applicableDiscount = discount && !discountIssue ? discount : null;
  // The rate's price is final here (bands and freeOver applied by the shipping rules); totals only add it (and tax it).
  const { tax, ...totals } = computeTotals(
    lines,
    applicableDiscount,
    applied ? { price: applied.price, freeOverAmount: null } : null,
    taxerOf(taxes, cart),
    lines.map((line) => line.id)
  );
  return {
    tax,
    cart,
    lines,
    discount: discount ?? null,
    discountIssue,
    shippingRate: applied,
    shippingRefusal: refusal,
    shippingMethodDropped: refusal ? { id: cart.shippingMethodId!, reason: refusal.reason } : cart.shippingMethodDropped,
    shippingRequired: contents.shippingRequired,
    shippingMethod: applied ? { id: applied.rate.id, name: applied.rate.name, price: applied.price } : null,
    totals
  };
}

const taxLinesDto = (lines: TaxLine[] | undefined) => (lines ?? []).map(({ name, rate, amount, jurisdiction }) => ({ name, rate, amount, jurisdiction }));

export function toCartDto(priced: PricedCart) {
  const { cart, lines, totals, tax } = priced;
  return {
    id: cart.id,
    status: cart.status,
    currency: cart.currency,
    email: cart.email,
    items: lines.map((line, index) => ({
      id: line.id,
      variantId: line.variantId,
      productId: line.productId,
      title: line.title,
      sku: line.sku,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      lineTotal: line.lineTotal,
      discountAmount: tax.lineDiscounts[index] ?? 0,
      taxLines: taxLinesDto(tax.lineTaxes[index])
    })),
    discountCode: cart.discountCode,
    subtotal: totals.subtotal,
    discountTotal: totals.discountTotal,
    shippingMethod: priced.shippingMethod,
    shippingMethodDropped: priced.shippingMethodDropped,
    shippingRequired: priced.shippingRequired,
    shippingDestination: { country: cart.shippingCountry, region: cart.shippingRegion, postalCode: cart.shippingPostcode },
    shippingTotal: totals.shippingTotal,
    shippingTaxLines: taxLinesDto(tax.shippingTaxLines),
    taxTotal: totals.taxTotal,
    total: totals.total,
    pricesIncludeTax: totals.pricesIncludeTax,
    expiresAt: cart.expiresAt,
    createdAt: cart.createdAt,
    updatedAt: cart.updatedAt
  };
}
