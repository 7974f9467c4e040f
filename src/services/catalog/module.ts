import type { AppContext } from '../../context.js';
import type { ModuleContribution } from '../modules/contribution.js';
import { invalidateStorefrontCatalog } from './storefront-cache.js';

/** Variants at or below this many units (deny policy) count as low stock on the dashboard. */
export const LOW_STOCK_THRESHOLD = 5;

const dropStorefrontCatalog = (ctx: AppContext, event: { storeId: string }) => invalidateStorefrontCatalog(ctx, event.storeId);

export const catalogModule: ModuleContribution = {
  name: 'catalog',
  // Whatever a storefront could see changed: product, variants, stock, collections, media links.
  onEvent: {
    'product.changed': dropStorefrontCatalog,
    'inventory.changed': dropStorefrontCatalog,
    'collection.changed': dropStorefrontCatalog
  },
  async dashboard(ctx, storeId) {
    const result = await ctx.db.raw(
      `select
         (select count(*) from products where store_id = ? and status <> 'archived') as products_count,
         (select count(*) from product_variants
            where store_id = ? and inventory_policy = 'deny' and inventory_quantity <= ? and archived_at is null) as low_stock_variants`,
      [storeId, storeId, LOW_STOCK_THRESHOLD]
    );
    const row = result.rows[0];
    return {
      stats: { productsCount: Number(row.products_count), lowStockVariants: Number(row.low_stock_variants) },
      setup: { hasProducts: Number(row.products_count) > 0 }
    };
  }
};
