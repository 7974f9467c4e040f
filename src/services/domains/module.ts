import type { Module } from '../../context.js';

export const domainsModule: Module = {
  name: 'domains',
  async dashboard(ctx, storeId) {
    const rows = await ctx.db('storeDomains').where({ storeId }).select('status');
    return { setup: { domainVerified: rows.some((row: { status: string }) => row.status === 'verified' || row.status === 'active'), domainConnected: rows.length > 0 } };
  }
};
