import type { ModuleContribution } from '../modules/contribution.js';

export const customersModule: ModuleContribution = {
  name: 'customers',
  async dashboard(ctx, storeId) {
    const row = await ctx
      .db('customers')
      .where({ storeId })
      .first(ctx.db.raw('count(*) as customers_count'), ctx.db.raw(`count(*) filter (where email_marketing = 'subscribed') as subscribers_count`));
    return { stats: { customersCount: Number(row?.customersCount ?? 0), subscribersCount: Number(row?.subscribersCount ?? 0) } };
  }
};
