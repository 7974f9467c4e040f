import type { ModuleContribution } from '../modules/contribution.js';

export const domainsModule: ModuleContribution = {
  name: 'domains',
  async dashboard(ctx, storeId) {
    const row = await ctx.db('storeDomains').where({ storeId }).whereIn('status', ['verified', 'active']).first('id');
    return { setup: { domainVerified: Boolean(row) } };
  }
};
