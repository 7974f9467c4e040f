import type { ModuleContribution } from '../modules/contribution.js';
import { paymentsConnected } from './accounts.js';

export const paymentsModule: ModuleContribution = {
  name: 'payments',
  dashboard: async (ctx, storeId) => ({ setup: { paymentsConnected: await paymentsConnected(ctx.db, storeId) } })
};
