import type { Module } from '../../context.js';

export const customersModule: Module = {
  name: 'customers',
  // Kept by triggers on customers (migration 20261123004100): at most 16 shard rows summed, whatever the store's size.
  async dashboard(ctx, storeId) {
    const row = await ctx
      .db('storeCustomerCounts')
      .where({ storeId })
      .first(ctx.db.raw('coalesce(sum(customers), 0) as customers'), ctx.db.raw('coalesce(sum(subscribers), 0) as subscribers'));
    return { stats: { customersCount: Number(row?.customers ?? 0), subscribersCount: Number(row?.subscribers ?? 0) } };
  }
};
