import type { AppContext } from '../../context.js';
import type { AdminResourceKind, EmailTemplate, DashboardPart, DashboardSetup, DashboardStats, PurchaseConditions, SqlCondition } from './contribution.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export interface Dashboard {
  stats: DashboardStats;
  setup: DashboardSetup;
  recentOrders: unknown[];
  openIssues: unknown[];
}

/** Every module's dashboard part, gathered in parallel and merged over zero defaults. */
export async function dashboardFigures(ctx: AppContext, storeId: string): Promise<Dashboard> {
  const parts: DashboardPart[] = await Promise.all(ctx.modules.filter((m) => m.dashboard).map((m) => m.dashboard!(ctx, storeId)));
  const dashboard: Dashboard = {
    stats: { ordersCount: 0, revenue30d: 0, customersCount: 0, subscribersCount: 0, productsCount: 0, pendingReviews: 0, lowStockVariants: 0 },
    setup: { paymentsConnected: false, domainVerified: false, domainConnected: false, emailConfigured: false, hasProducts: false },
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

export async function storeCurrencyLocked(ctx: AppContext, db: Sql, storeId: string): Promise<boolean> {
  const answers = await Promise.all(ctx.modules.filter((m) => m.locksStoreCurrency).map((m) => m.locksStoreCurrency!(db, storeId)));
  return answers.some(Boolean);
}

export async function variantsInUse(ctx: AppContext, db: Sql, storeId: string, variantIds: string[]): Promise<Set<string>> {
  if (variantIds.length === 0) return new Set();
  const answers = await Promise.all(ctx.modules.filter((m) => m.variantsInUse).map((m) => m.variantsInUse!(db, storeId, variantIds)));
  return new Set(answers.flat());
}

export async function customerRecentOrders(ctx: AppContext, storeId: string, customerId: string): Promise<unknown[]> {
  const answers = await Promise.all(ctx.modules.filter((m) => m.customerRecentOrders).map((m) => m.customerRecentOrders!(ctx, storeId, customerId)));
  return answers.flat();
}

export async function storeTemplateKeys(ctx: AppContext, storeId: string): Promise<string[]> {
  const answers = await Promise.all(ctx.modules.filter((m) => m.templateKeys).map((m) => m.templateKeys!(ctx, storeId)));
  return answers.flat();
}

export async function findStoreTemplate(ctx: AppContext, storeId: string, key: string): Promise<EmailTemplate | null> {
  for (const module of ctx.modules) {
    const template = module.findTemplate ? await module.findTemplate(ctx, storeId, key) : null;
    if (template) return template;
  }
  return null;
}

/**
 * "Has bought" conditions from the module that keeps orders. Without one, nobody has bought
 * anything: a filter that asks for purchases matches no one.
 */
export function purchaseConditions(ctx: AppContext, filters: PurchaseConditions): SqlCondition[] {
  if (!filters.purchasedProductIds?.length && !filters.purchasedCollectionIds?.length) return [];
  const provider = ctx.modules.find((m) => m.purchaseConditions);
  return provider ? provider.purchaseConditions!(filters) : [{ sql: 'false', bindings: [] }];
}

/** Whether every module that keeps consent lets this customer receive marketing email. */
export async function marketingConsent(ctx: AppContext, storeId: string, customerId: string): Promise<boolean> {
  for (const module of ctx.modules) if (module.marketingConsent && !(await module.marketingConsent(ctx, storeId, customerId))) return false;
  return true;
}

/** A tracked job run failed for good: told to every module that cares (job-history imports none of them). */
export async function jobFailed(ctx: AppContext, run: { id: string; storeId: string | null; type: string }, message: string): Promise<void> {
  for (const module of ctx.modules) if (module.jobFailed) await module.jobFailed(ctx, run, message);
}

export async function creditUnsubscribe(ctx: AppContext, trx: Transaction, storeId: string, customerId: string, campaignId: string): Promise<void> {
  for (const module of ctx.modules) if (module.creditUnsubscribe) await module.creditUnsubscribe(trx, storeId, customerId, campaignId);
}

/**
 * Many resources of one kind in the admin API's shape, when the owning module reads them in a batch
 * (null: it reads them one by one only, through `adminResource`).
 */
export async function adminResources(ctx: AppContext, db: Sql, kind: AdminResourceKind, storeId: string, ids: string[]): Promise<Map<string, unknown> | null> {
  for (const module of ctx.modules) {
    const read = module.adminResources?.[kind];
    if (read) return read(ctx, db, storeId, ids);
  }
  return null;
}

/** A resource in the admin API's shape from the module that owns it (null: no such resource, or no module). */
export async function adminResource(ctx: AppContext, db: Sql, kind: AdminResourceKind, storeId: string, id: string): Promise<unknown> {
  for (const module of ctx.modules) {
    const read = module.adminResource?.[kind];
    if (read) return read(ctx, db, storeId, id);
  }
  return null;
}
