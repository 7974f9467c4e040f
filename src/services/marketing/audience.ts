import type { AppContext } from '../../context.js';
import { assertListsExist } from './lists.js';
import type { PurchaseConditions, SqlCondition } from '../../platform/modules/contribution.js';
import { purchaseConditions } from '../../platform/modules/registry.js';
import type { Sql } from '../../db/transaction.js';

export interface AudienceFilters extends PurchaseConditions {
  tags?: string[];
  lastOrderBefore?: Date | string;
  lastOrderAfter?: Date | string;
  minOrders?: number;
  minTotalSpent?: number;
}

/** Who a campaign goes to. `inactiveDays` is the old-customers rule (orders, none in that many days). */
export interface Audience {
  listIds?: string[];
  filters?: AudienceFilters;
  inactiveDays?: number;
}

/**
 * The WHERE clause (customer alias `c`) selecting an audience. Always: this store, `subscribed`,
 * and not on the store's suppression list. Lists are a union (member of any); filters intersect.
 * An empty array (`listIds: []`, `tags: []`, …) restricts nothing, like an absent key.
 */
export async function audienceCondition(ctx: AppContext, db: Sql, storeId: string, audience: Audience): Promise<SqlCondition> {
  const parts: SqlCondition[] = [
    { sql: 'c.store_id = ?', bindings: [storeId] },
    { sql: `c.email_marketing = 'subscribed'`, bindings: [] },
    { sql: 'not exists (select 1 from marketing_suppressions s where s.store_id = c.store_id and s.email = lower(c.email))', bindings: [] }
  ];
  if (audience.listIds?.length) {
    parts.push({
      sql: `exists (select 1 from marketing_list_members m join marketing_lists l on l.id = m.list_id
              where m.customer_id = c.id and l.store_id = c.store_id and m.list_id = any(?::uuid[]))`,
      bindings: [audience.listIds]
    });
  }
  const f = audience.filters ?? {};
  if (f.tags?.length) parts.push({ sql: 'c.tags && ?::text[]', bindings: [f.tags] });
  if (f.lastOrderBefore) parts.push({ sql: 'c.last_order_at < ?', bindings: [new Date(f.lastOrderBefore)] });
  if (f.lastOrderAfter) parts.push({ sql: 'c.last_order_at > ?', bindings: [new Date(f.lastOrderAfter)] });
  if (f.minOrders !== undefined) parts.push({ sql: 'c.orders_count >= ?', bindings: [f.minOrders] });
  if (f.minTotalSpent !== undefined) parts.push({ sql: 'c.total_spent >= ?', bindings: [f.minTotalSpent] });
  if (audience.inactiveDays !== undefined) {
    parts.push({ sql: `c.orders_count > 0 and c.last_order_at < now() - make_interval(days => ?)`, bindings: [audience.inactiveDays] });
  }
  parts.push(...purchaseConditions(ctx, f));
  return { sql: parts.map((p) => `(${p.sql})`).join(' and '), bindings: parts.flatMap((p) => p.bindings) };
}

const SAMPLE_SIZE = 10;

/**
 * How many customers an audience reaches right now, and, with `sample`, a few of them (newest
 * first): their emails and names are customer data, which not every caller may read.
 */
export async function previewAudience(ctx: AppContext, storeId: string, audience: Audience, options: { sample: boolean }) {
  await assertListsExist(ctx.db, storeId, audience.listIds ?? []);
  const where = await audienceCondition(ctx, ctx.db, storeId, audience);
  const [countResult, sampleResult] = await Promise.all([
    ctx.db.raw(`select count(*)::int as count from customers c where ${where.sql}`, where.bindings),
    options.sample
      ? ctx.db.raw(
          `select c.id, c.email, c.first_name, c.last_name from customers c where ${where.sql} order by c.created_at desc, c.id desc limit ${SAMPLE_SIZE}`,
          where.bindings
        )
      : null
  ]);
  const count = countResult.rows[0].count as number;
  if (!sampleResult) return { count };
  return { count, sample: sampleResult.rows.map((r: any) => ({ id: r.id, email: r.email, firstName: r.firstName, lastName: r.lastName })) };
}
