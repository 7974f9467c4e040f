import type { Module } from '../../context.js';

export const domainsModule: Module = {
  name: 'domains',
  async dashboard(ctx, storeId) {
    const row = await ctx.db('storeDomains').where({ storeId }).whereIn('status', ['verified', 'active']).first('id');
    return { setup: { domainVerified: Boolean(row) } };
  }
};
