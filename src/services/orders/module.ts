import type { Module } from '../../context.js';
import { purchaseConditions } from './purchase-conditions.js';
import { toOrderSummaryDto, type OrderRow } from './dto.js';
import { disputeResource } from './disputes.js';
import { loadOrder, recentOrdersOfCustomer } from './orders.js';

/**
 * Orders on the dashboard, cheap at any size: the count and 30-day revenue come from the daily
 * rollup kept with each order (a few hundred rows), plus one boundary day of orders for revenue.
 */
export const ordersModule: Module = {
  name: 'orders',
  adminResource: { order: async (ctx, db, storeId, id) => (await loadOrder(ctx, db, storeId, id)).dto, dispute: (_ctx, db, storeId, id) => disputeResource(db, storeId, id) },
  async dashboard(ctx, storeId) {
    const [counted, revenue, recent] = await Promise.all([
      ctx.db('storeDailyRevenue').where({ storeId }).sum<{ orders: number | null }[]>('orders as orders').first(),
      // Whole UTC days after the boundary day from the daily rollup; the boundary day itself from
      // its orders (only those within the last 30 days × 24 h), so the window is exact.
      ctx.db.raw(
        `with b as (select now() - interval '30 days' as since, ((now() - interval '30 days') at time zone 'UTC')::date as day)
         select (select coalesce(sum(revenue), 0) from store_daily_revenue, b where store_id = ? and store_daily_revenue.day > b.day)
              + (select coalesce(sum(greatest(0, total - amount_refunded - amount_charged_back)), 0) from orders, b
                  where store_id = ? and created_at >= b.since and created_at < ((b.day + 1)::timestamp at time zone 'UTC')
                    and payment_status not in ('refunded', 'voided', 'failed') and status <> 'cancelled') as revenue`,
        [storeId, storeId]
      ),
      ctx.db('orders').where({ storeId }).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(5) as Promise<OrderRow[]>
    ]);
    return {
      stats: { ordersCount: Number(counted?.orders ?? 0), revenue30d: Number(revenue.rows[0].revenue) },
      recentOrders: recent.map(toOrderSummaryDto)
    };
  },
  async locksStoreCurrency(db, storeId) {
    return Boolean(await db('orders').where({ storeId }).first('id'));
  },
  async variantsInUse(db, storeId, variantIds) {
    const result = await db.raw(
      `select variant_id from order_items where store_id = ? and variant_id = any(?::uuid[])
       union select variant_id from stock_reservations where store_id = ? and state = 'held' and variant_id = any(?::uuid[])`,
      [storeId, variantIds, storeId, variantIds]
    );
    return result.rows.map((row: { variantId: string }) => row.variantId);
  },
  customerRecentOrders: (ctx, storeId, customerId) => recentOrdersOfCustomer(ctx, storeId, customerId),
  purchaseConditions
};
