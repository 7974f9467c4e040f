import type { ModuleContribution } from '../modules/contribution.js';
import { FIRST_ORDER_NUMBER } from './create-order.js';
import { toOrderSummaryDto, type OrderRow } from './dto.js';
import { recentOrdersOfCustomer } from './orders.js';

/**
 * Orders on the dashboard, cheap at any size: the count is the store's order counter (numbers are
 * gapless: drawn in the order's own transaction), revenue an index-only range scan over 30 days.
 */
export const ordersModule: ModuleContribution = {
  name: 'orders',
  async dashboard(ctx, storeId) {
    const [counter, revenue, recent] = await Promise.all([
      ctx.db('storeOrderCounters').where({ storeId }).first('lastNumber'),
      ctx.db.raw(
        `select coalesce(sum(total), 0)::bigint as revenue from orders
          where store_id = ? and created_at >= now() - interval '30 days' and payment_status not in ('refunded', 'failed')`,
        [storeId]
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
