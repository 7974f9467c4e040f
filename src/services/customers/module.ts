import type { ModuleContribution } from '../modules/contribution.js';

export const customersModule: ModuleContribution = {
  name: 'customers',
  // Kept by triggers on customers (migration 20261123004100): one row read, whatever the store's size.
  async dashboard(ctx, storeId) {
    const row = await ctx.db('storeCustomerCounts').where({ storeId }).first('customers', 'subscribers');
    return { stats: { customersCount: Number(row?.customers ?? 0), subscribersCount: Number(row?.subscribers ?? 0) } };
  }
};
