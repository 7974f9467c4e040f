import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import type { StoreRow } from '../stores/index.js';
import { cachedTaxRegions, matchRegion, noTax, normalizeRegion, taxWithRule, type TaxAddress, type TaxRegionRule } from '../taxes/index.js';
import type { Taxer } from './totals.js';

/**
 * How a store taxes its carts: prices with or without tax, and its rate table (cached per process,
 * dropped on every tax region change). A cart is taxed at its address (the checkout session's, or
 * the country chosen with a shipping method, or a read's `country`/`region`); `override` is a
 * provider's answer computed ahead (Stripe Tax at checkout), `exempt` a tax-exempt customer.
 */
export interface CartTaxes {
  pricesIncludeTax: boolean;
  rules: readonly TaxRegionRule[];
  exempt?: boolean;
  address?: TaxAddress | null;
  override?: Taxer;
}

export async function storeTaxes(ctx: AppContext, store: StoreRow): Promise<CartTaxes> {
  return { pricesIncludeTax: Boolean(store.pricesIncludeTax), rules: await cachedTaxRegions(ctx, store.id) };
}

export const cartAddress = (cart: { shippingCountry: string | null; shippingRegion?: string | null }): TaxAddress | null =>
  cart.shippingCountry ? { country: cart.shippingCountry, region: cart.shippingRegion ?? null } : null;

/** The taxer of a cart: the override, nothing for an exempt customer, else the rate table at the address. */
export function taxerOf(taxes: CartTaxes, cart: { shippingCountry: string | null; shippingRegion?: string | null }): Taxer {
  if (taxes.override) return taxes.override;
  if (taxes.exempt || taxes.rules.length === 0) return { pricesIncludeTax: taxes.pricesIncludeTax, compute: noTax };
  const rule = matchRegion(taxes.rules, taxes.address ?? cartAddress(cart));
  return { pricesIncludeTax: taxes.pricesIncludeTax, compute: (input) => taxWithRule(rule, input) };
}

/**
 * Whether the customer is tax exempt (customers.tax_exempt; read only, the table is customers'):
 * by id when one is known (a draft's or an order's customer), else by email (case-insensitive).
 */
export async function isTaxExempt(db: Sql, storeId: string, email: string | null | undefined, customerId?: string | null): Promise<boolean> {
  if (customerId) {
    const byId = await db('customers').where({ storeId, id: customerId }).first('taxExempt');
    if (byId) return Boolean(byId.taxExempt);
  }
  if (!email) return false;
  const row = await db('customers').where({ storeId }).whereRaw('lower(email) = lower(?)', [email]).first('taxExempt');
  return Boolean(row?.taxExempt);
}

export const regionCode = normalizeRegion;
