import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import type { EmailTemplate } from '../email/templates.js';
import type { DomainEvent, DomainEventType } from '../events/domain-events.js';

export interface DashboardStats {
  ordersCount: number;
  revenue30d: number;
  customersCount: number;
  subscribersCount: number;
  productsCount: number;
  pendingReviews: number;
  lowStockVariants: number;
}

export interface DashboardSetup {
  paymentsConnected: boolean;
  domainVerified: boolean;
  emailConfigured: boolean;
  hasProducts: boolean;
}

/** A module's part of `GET /admin/store`; the dashboard merges every module's part. */
export interface DashboardPart {
  stats?: Partial<DashboardStats>;
  setup?: Partial<DashboardSetup>;
  recentOrders?: unknown[];
  openIssues?: unknown[];
}

/** Customers who bought given products or products of given collections (audience filters). */
export interface PurchaseConditions {
  purchasedProductIds?: string[];
  purchasedCollectionIds?: string[];
}

/** A SQL condition with its bindings, on the customer alias `c`. */
export interface SqlCondition {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * What a module offers the rest of the service. Earlier modules ask the registry instead of
 * probing later modules' tables; a module that is not installed simply contributes nothing.
 */
export interface ModuleContribution {
  name: string;
  dashboard?(ctx: AppContext, storeId: string): Promise<DashboardPart>;
  /** Whether the store has records (orders) that lock settings such as its currency. */
  locksStoreCurrency?(db: Knex | Knex.Transaction, storeId: string): Promise<boolean>;
  /** Of these variant ids, the ones something still points at (ordered): archive them, never delete. */
  variantsInUse?(db: Knex | Knex.Transaction, storeId: string, variantIds: string[]): Promise<string[]>;
  /**
   * A stock count's view of the units a module holds for a variant (open checkouts), the variant
   * row locked by the caller: locks the holds and, when `keepAtMost` is given, keeps no more held
   * than that. The units held before and after.
   */
  lockStockHolds?(trx: Knex.Transaction, storeId: string, variantId: string, keepAtMost: number | null): Promise<{ before: number; after: number }>;
  /** A customer's latest orders for `GET /admin/customers/{id}`. */
  customerRecentOrders?(ctx: AppContext, storeId: string, customerId: string): Promise<unknown[]>;
  /** A store's own email templates by key (marketing), as overrides and extra keys for transactional mail. */
  templateKeys?(ctx: AppContext, storeId: string): Promise<string[]>;
  findTemplate?(ctx: AppContext, storeId: string, key: string): Promise<EmailTemplate | null>;
  /** Conditions on customers `c` for "has bought" audience filters (the orders module). */
  purchaseConditions?(filters: PurchaseConditions): SqlCondition[];
  /** An unsubscribe through a link that names a campaign: marketing credits that campaign (in the caller's transaction). */
  creditUnsubscribe?(trx: Knex.Transaction, customerId: string, campaignId: string): Promise<void>;
  /** Reactions to committed domain events (cache invalidation, search documents, …). */
  onEvent?: { [T in DomainEventType]?: (ctx: AppContext, event: Extract<DomainEvent, { type: T }>) => Promise<void> };
}
