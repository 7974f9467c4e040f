import type { AppContext } from '../../context.js';
import { cachedStore } from '../stores/index.js';
import { matchRegion, normalizeRegion, rateFor, taxOf } from './compute.js';
import { cachedTaxRegions } from './regions.js';

interface DocumentVariant {
  id: string;
  price: number;
  [key: string]: unknown;
}

interface DocumentProduct {
  variants: DocumentVariant[];
  [key: string]: unknown;
}

/**
 * The storefront's tax view of product documents for a shopper's `country` (and `region`): whether
 * the store's prices include tax, and per variant the price with and without tax and the one to
 * show (`displayPrice`: with tax when the store's prices include it, VAT style, else without), at the
 * built-in rate table's rate for the variant's tax class, one unit rounded half up (docs/taxes.md).
 * The cached documents stay as they are; the route caches this view under a key of its own.
 */
export async function withTaxView<T extends DocumentProduct>(ctx: AppContext, storeId: string, products: T[], address: { country: string; region?: string | null }) {
  const [store, rules] = await Promise.all([cachedStore(ctx, storeId), cachedTaxRegions(ctx, storeId)]);
  const region = normalizeRegion(address.country, address.region);
  const rule = matchRegion(rules, { country: address.country, region });
  const variantIds = products.flatMap((product) => product.variants.map((variant) => variant.id));
  const classes = new Map<string, string | null>();
  if (rule && variantIds.length) {
    const rows = (await ctx.db('productVariants').where({ storeId }).whereIn('id', variantIds).select('id', 'taxClass')) as Array<{ id: string; taxClass: string | null }>;
    for (const row of rows) classes.set(row.id, row.taxClass);
  }
  const inclusive = Boolean(store.pricesIncludeTax);
  return products.map((product) => ({
    ...product,
    tax: { pricesIncludeTax: inclusive, country: address.country.toUpperCase(), region: region ? `${address.country.toUpperCase()}-${region}` : null, name: rule?.name ?? null },
    variants: product.variants.map((variant) => {
      const rate = rule ? rateFor(rule, classes.get(variant.id) ?? null) : 0;
      const tax = taxOf(variant.price, rate, inclusive);
      const priceInclTax = inclusive ? variant.price : variant.price + tax;
      const priceExclTax = inclusive ? variant.price - tax : variant.price;
      return { ...variant, taxRate: rate, priceInclTax, priceExclTax, displayPrice: inclusive ? priceInclTax : priceExclTax };
    })
  }));
}
