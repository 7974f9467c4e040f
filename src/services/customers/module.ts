/**
 * The customers module owns customers and their imports (src/platform/table-owners.ts). A rule the
 * database keeps for it: triggers `customers_count_insert`, `customers_count_update` and
 * `customers_count_delete` (function `store_customer_counts_apply`, migrations 20261123004100,
 * 20261123006700, 20261123007100) keep each store's customer and subscriber counts in
 * `store_customer_counts` shards, whoever writes a customer (checkout, imports, the sync).
 */
import type { Module } from '../../context.js';
import { findCustomerRow, toCustomerDto } from './customers.js';
import { isSubscribed } from './unsubscribe.js';

export const customersModule: Module = {
  name: 'customers',
  marketingConsent: isSubscribed,
  adminResource: {
    customer: async (_ctx, db, storeId, id) => {
      const row = await findCustomerRow(db, storeId, id);
      return row ? toCustomerDto(row) : null;
    }
  },
  // Kept by triggers on customers (migration 20261123004100): at most 16 shard rows summed, whatever the store's size.
  async dashboard(ctx, storeId) {
    const row = await ctx
      .db('storeCustomerCounts')
      .where({ storeId })
      .first(ctx.db.raw('coalesce(sum(customers), 0) as customers'), ctx.db.raw('coalesce(sum(subscribers), 0) as subscribers'));
    return { stats: { customersCount: Number(row?.customers ?? 0), subscribersCount: Number(row?.subscribers ?? 0) } };
  }
};
