import type { ModuleContribution } from '../modules/contribution.js';
import { FIRST_ORDER_NUMBER } from './create-order.js';
import { toOrderSummaryDto, type OrderRow } from './dto.js';
import { recentOrdersOfCustomer } from './orders.js';

/**
 * Orders on the dashboard, cheap at any size: the count is the store's order counter (numbers are
 * gapless: drawn in the order's own transaction), revenue from hourly buckets kept by triggers.
 */
export const ordersModule: ModuleContribution = {
  name: 'orders',
  async dashboard(ctx, storeId) {
    const [counter, revenue, recent] = await Promise.all([
      ctx.db('storeOrderCounters').where({ storeId }).first('lastNumber'),
      // Whole hours from the trigger-kept buckets (migration 20261123004200), plus the orders of the
      // window's first, partial hour read exactly: the sum is exact and reads at most ~720 buckets.
      ctx.db.raw(
        `with since as (select now() - interval '30 days' as at)
         select (select coalesce(sum(revenue), 0) from store_revenue_hours, since
                  where store_id = ? and hour >= date_trunc('hour', since.at) + interval '1 hour')
              + (select coalesce(sum(total), 0) from orders, since
                  where store_id = ? and created_at >= since.at and created_at < date_trunc('hour', since.at) + interval '1 hour'
                    and payment_status not in ('refunded', 'failed')) as revenue`,
        [storeId, storeId]
      ),
      ctx.db('orders').where({ storeId }).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(5) as Promise<OrderRow[]>
    ]);
    return {
      stats: { ordersCount: counter ? counter.lastNumber - FIRST_ORDER_NUMBER + 1 : 0, revenue30d: Number(revenue.rows[0].revenue) },
      recentOrders: recent.map(toOrderSummaryDto)
    };
  },
  async locksStoreCurrency(db, storeId) {
    return Boolean(await db('storeOrderCounters').where({ storeId }).first('storeId'));
  },
  async variantsInUse(db, storeId, variantIds) {
    const result = await db.raw(
      `select variant_id from order_items where store_id = ? and variant_id = any(?::uuid[])
       union select variant_id from stock_reservations where store_id = ? and state = 'held' and variant_id = any(?::uuid[])`,
      [storeId, variantIds, storeId, variantIds]
    );
    return result.rows.map((row: { variant_id: string }) => row.variant_id);
  },
  customerRecentOrders: (ctx, storeId, customerId) => recentOrdersOfCustomer(ctx, storeId, customerId)
};
