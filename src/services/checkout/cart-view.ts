import type { Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import type { ShippingMethod } from '../stores/index.js';
import { discountProblem, type DiscountRecord } from '../discounts/index.js';
import { shipsTo } from './shipping.js';
import { computeTotals, lineTotal, shippingPrice, type TaxDetail, type Totals } from './totals.js';
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
  /** The shipping address's subdivision (ISO 3166-2 without the country: 'CA'), set by the checkout session; for tax. */
  shippingRegion: string | null;
  orderId: string | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
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
  taxClass: string | null;
}

export interface PricedCart {
  cart: CartRow;
  lines: CartLine[];
  discount: DiscountRecord | null;
  /** Why the attached discount does not apply right now (it then counts 0), or null. */
  discountIssue: string | null;
  shippingMethod: { id: string; name: string; price: number } | null;
  shippingMethodRecord: ShippingMethod | null;
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
          v.inventory_policy as "inventoryPolicy", v.archived_at is null and p.status = 'active' as available, i.created_at as "addedAt", v.tax_class as "taxClass"
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
  taxClass: row.taxClass ?? null
});

const LINES_SQL = `${lineRowsSql('?')} order by i.created_at, i.id`;

/** The cart's lines at current prices, in the order they were added; one (prepared) query. */
async function loadLines(db: Sql, cartId: string): Promise<CartLine[]> {
  const result = await db.raw(LINES_SQL, [cartId]).options(PREPARED);
  return (result.rows as LineRow[]).map(toCartLine);
}

/**
 * Prices a cart: lines, the discount if it still applies, the chosen shipping method, totals.
 * `knownLines` skips the read when the caller already knows them (a cart just made is empty).
 */
export async function priceCart(db: Sql, cart: CartRow, methods: ShippingMethod[], knownLines: CartLine[] | undefined, taxes: CartTaxes): Promise<PricedCart> {
  const [lines, discount] = await Promise.all([
    knownLines ?? loadLines(db, cart.id),
    cart.discountId ? (db('discounts').where({ id: cart.discountId, storeId: cart.storeId }).first() as Promise<DiscountRecord | undefined>) : null
  ]);
  const subtotal = lines.reduce((sum, line) => sum + line.lineTotal, 0);
  const discountIssue = cart.discountId ? discountProblem(discount ?? undefined, subtotal) : null;
  const record = cart.shippingMethodId ? (methods.find((m) => m.id === cart.shippingMethodId) ?? null) : null;
  const usable = record && shipsTo(record, cart.shippingCountry) ? record : null;
  const applied = discount && !discountIssue ? discount : null;
  const { tax, ...totals } = computeTotals(
    lines,
    applied,
    usable ? { price: usable.price, freeOverAmount: usable.freeOverAmount ?? null } : null,
    taxerOf(taxes, cart),
    lines.map((line) => line.id)
  );
  return {
    tax,
    cart,
    lines,
    discount: discount ?? null,
    discountIssue,
    shippingMethodRecord: usable,
    shippingMethod: usable ? { id: usable.id, name: usable.name, price: shippingPrice({ price: usable.price, freeOverAmount: usable.freeOverAmount ?? null }, subtotal) } : null,
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
