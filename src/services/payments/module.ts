import type { Module } from '../../context.js';
import { paymentsConnected } from './accounts.js';

export const paymentsModule: Module = {
  name: 'payments',
  dashboard: async (ctx, storeId) => ({ setup: { paymentsConnected: await paymentsConnected(ctx.db, storeId) } })
};
