/**
 * The catalog module: products, variants, media, collections, stock and what storefronts read.
 * It owns those tables (src/platform/table-owners.ts). Rules the database keeps for it, whoever
 * writes (checkout included), in the same transaction:
 * - triggers `storefront_products_*`, `storefront_variants_*`, `storefront_product_media_*` and
 *   `storefront_media_update` rebuild a product's storefront JSON (`storefront_products`,
 *   functions `refresh_storefront_products`, `storefront_product_documents`, `storefront_json`;
 *   migration 20261123006200): a document is never older than the rows it shows;
 * - triggers `storefront_search_*` keep `storefront_search` (one row per active product and its
 *   search vector; migration 20261123006400);
 * - the generated column `product_variants.low_stock` (below).
 */
import type { AppContext, Module } from '../../context.js';
import { adminProduct, adminProducts } from './products.js';
import { invalidateStorefrontCatalog } from './storefront-cache.js';

/**
 * Variants at or below this many units (deny policy) count as low stock on the dashboard. The
 * `product_variants.low_stock` column computes it (migration 20261123006900); the two must agree.
 */
export const LOW_STOCK_THRESHOLD = 5;

// Drops the cached reads and moves the HTTP version (ETags) with them.
const dropStorefrontCatalog = (ctx: AppContext, event: { storeId: string }) => invalidateStorefrontCatalog(ctx, event.storeId);

export const catalogModule: Module = {
  name: 'catalog',
  // Whatever a storefront could see changed: product, variants, stock, collections, media links.
  onEvent: {
    'product.changed': dropStorefrontCatalog,
    'inventory.changed': dropStorefrontCatalog,
    'collection.changed': dropStorefrontCatalog
  },
  adminResource: { product: adminProduct },
  adminResources: { product: adminProducts },
  async dashboard(ctx, storeId) {
    const result = await ctx.db.raw(
      `select
         (select count(*) from products where store_id = ? and status <> 'archived') as products_count,
         (select count(*) from product_variants where store_id = ? and low_stock) as low_stock_variants`,
      [storeId, storeId]
    );
    const row = result.rows[0];
    return {
      stats: { productsCount: Number(row.productsCount), lowStockVariants: Number(row.lowStockVariants) },
      setup: { hasProducts: Number(row.productsCount) > 0 }
    };
  }
};
