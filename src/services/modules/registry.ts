import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import type { EmailTemplate } from '../email/templates.js';
import type { DashboardPart, DashboardSetup, DashboardStats, PurchaseConditions, SqlCondition } from './contribution.js';
import { MODULES } from './index.js';

export interface Dashboard {
  stats: DashboardStats;
  setup: DashboardSetup;
  recentOrders: unknown[];
  openIssues: unknown[];
}

/** Every module's dashboard part, gathered in parallel and merged over zero defaults. */
export async function dashboardFigures(ctx: AppContext, storeId: string): Promise<Dashboard> {
  const parts: DashboardPart[] = await Promise.all(MODULES.filter((m) => m.dashboard).map((m) => m.dashboard!(ctx, storeId)));
  const dashboard: Dashboard = {
    stats: { ordersCount: 0, revenue30d: 0, customersCount: 0, subscribersCount: 0, productsCount: 0, pendingReviews: 0, lowStockVariants: 0 },
    setup: { paymentsConnected: false, domainVerified: false, emailConfigured: false, hasProducts: false },
    recentOrders: [],
    openIssues: []
  };
  for (const part of parts) {
    Object.assign(dashboard.stats, part.stats);
    Object.assign(dashboard.setup, part.setup);
    if (part.recentOrders) dashboard.recentOrders.push(...part.recentOrders);
    if (part.openIssues) dashboard.openIssues.push(...part.openIssues);
  }
  return dashboard;
}

export async function storeCurrencyLocked(db: Knex | Knex.Transaction, storeId: string): Promise<boolean> {
  const answers = await Promise.all(MODULES.filter((m) => m.locksStoreCurrency).map((m) => m.locksStoreCurrency!(db, storeId)));
  return answers.some(Boolean);
}

export async function variantsInUse(db: Knex | Knex.Transaction, storeId: string, variantIds: string[]): Promise<Set<string>> {
  if (variantIds.length === 0) return new Set();
  const answers = await Promise.all(MODULES.filter((m) => m.variantsInUse).map((m) => m.variantsInUse!(db, storeId, variantIds)));
  return new Set(answers.flat());
}

/** Units of a variant held elsewhere (open checkouts), locked for a stock count; see ModuleContribution.lockStockHolds. */
export async function lockStockHolds(trx: Knex.Transaction, storeId: string, variantId: string, keepAtMost: number | null): Promise<{ before: number; after: number }> {
  const held = { before: 0, after: 0 };
  for (const module of MODULES) {
    if (!module.lockStockHolds) continue;
    const part = await module.lockStockHolds(trx, storeId, variantId, keepAtMost === null ? null : keepAtMost - held.after);
    held.before += part.before;
    held.after += part.after;
  }
  return held;
}

export async function customerRecentOrders(ctx: AppContext, storeId: string, customerId: string): Promise<unknown[]> {
  const answers = await Promise.all(MODULES.filter((m) => m.customerRecentOrders).map((m) => m.customerRecentOrders!(ctx, storeId, customerId)));
  return answers.flat();
}

export async function storeTemplateKeys(ctx: AppContext, storeId: string): Promise<string[]> {
  const answers = await Promise.all(MODULES.filter((m) => m.templateKeys).map((m) => m.templateKeys!(ctx, storeId)));
  return answers.flat();
}

export async function findStoreTemplate(ctx: AppContext, storeId: string, key: string): Promise<EmailTemplate | null> {
  for (const module of MODULES) {
    const template = module.findTemplate ? await module.findTemplate(ctx, storeId, key) : null;
    if (template) return template;
  }
  return null;
}

/**
 * "Has bought" conditions from the module that keeps orders. Without one, nobody has bought
 * anything: a filter that asks for purchases matches no one.
 */
export function purchaseConditions(filters: PurchaseConditions): SqlCondition[] {
  if (!filters.purchasedProductIds?.length && !filters.purchasedCollectionIds?.length) return [];
  const provider = MODULES.find((m) => m.purchaseConditions);
  return provider ? provider.purchaseConditions!(filters) : [{ sql: 'false', bindings: [] }];
}

export async function creditUnsubscribe(trx: Knex.Transaction, customerId: string, campaignId: string): Promise<void> {
  for (const module of MODULES) if (module.creditUnsubscribe) await module.creditUnsubscribe(trx, customerId, campaignId);
}
