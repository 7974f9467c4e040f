import type { AppContext } from '../context.js';
import { tableExists } from '../db/schema-probe.js';

/** Modules (catalog, orders, customers, …) land one by one: the dashboard counts what exists. */
const hasTable = (ctx: AppContext, table: string) => tableExists(ctx.db, table);

async function count(ctx: AppContext, table: string, where: (q: any) => void): Promise<number> {
  if (!(await hasTable(ctx, table))) return 0;
  const query = ctx.db(table);
  where(query);
  const row = await query.count<{ count: number }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

export async function storeStats(ctx: AppContext, storeId: string) {
  const since = new Date(Date.now() - 30 * 24 * 3600_000);
  const [ordersCount, customersCount, subscribersCount, productsCount, pendingReviews, lowStockVariants] = await Promise.all([
    count(ctx, 'orders', (q) => q.where({ storeId })),
    count(ctx, 'customers', (q) => q.where({ storeId })),
    count(ctx, 'customers', (q) => q.where({ storeId, emailMarketing: 'subscribed' })),
    count(ctx, 'products', (q) => q.where({ storeId }).whereNot({ status: 'archived' })),
    count(ctx, 'reviews', (q) => q.where({ storeId, state: 'pending' })),
    count(ctx, 'product_variants', (q) => q.where({ storeId, inventoryPolicy: 'deny' }).where('inventoryQuantity', '<=', 5))
  ]);
  let revenue30d = 0;
  let recentOrders: unknown[] = [];
  if (await hasTable(ctx, 'orders')) {
    const revenue = await ctx.db('orders').where({ storeId }).where('createdAt', '>=', since).sum<{ sum: number | null }[]>('total as sum').first();
    revenue30d = Number(revenue?.sum ?? 0);
    recentOrders = await ctx.db('orders').where({ storeId }).orderBy('createdAt', 'desc').limit(5).select('id', 'number', 'status', 'total', 'currency', 'email', 'createdAt');
  }
  const openIssues = (await hasTable(ctx, 'store_issues'))
    ? await ctx.db('storeIssues').where({ storeId }).whereNull('resolvedAt').orderBy('lastSeenAt', 'desc').limit(5).select('id', 'kind', 'severity', 'title')
    : [];
  return {
    stats: { ordersCount, revenue30d, customersCount, subscribersCount, productsCount, pendingReviews, lowStockVariants },
    paymentsConnected: false,
    domainVerified: false,
    recentOrders,
    openIssues
  };
}
