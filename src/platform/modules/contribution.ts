import type { Knex } from 'knex';
import type { DomainEvent, DomainEventType } from '../events/domain-event.js';
import type { StatementCall } from '../../db/prepared-statements.js';
import type { Sql, Transaction } from '../../db/transaction.js';

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
  /** A custom domain is connected, verified or not (the console asks for it only then: no 404 before). */
  domainConnected: boolean;
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

/** An email template's Liquid sources (a built-in one, or a store's own from marketing). */
export interface EmailTemplate {
  subject: string;
  html: string;
  text: string;
}

/** Resources other modules may ask for in the admin API's shape. */
export type AdminResourceKind = 'product' | 'order' | 'customer' | 'campaign' | 'dispute';

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
 * The installed modules travel on the context (`ctx.modules`, listed in ./index.ts and handed to
 * `createContext` by each process), so no service imports them back. `Ctx` is the AppContext
 * (`Module` in src/context.ts): a parameter, because the context that carries the modules cannot
 * be imported by their contract.
 */
export interface ModuleContribution<Ctx> {
  name: string;
  dashboard?(ctx: Ctx, storeId: string): Promise<DashboardPart>;
  /** Whether the store has records (orders) that lock settings such as its currency. */
  locksStoreCurrency?(db: Sql, storeId: string): Promise<boolean>;
  /** Of these variant ids, the ones something still points at (ordered): archive them, never delete. */
  variantsInUse?(db: Sql, storeId: string, variantIds: string[]): Promise<string[]>;
  /** A customer's latest orders for `GET /admin/customers/{id}`. */
  customerRecentOrders?(ctx: Ctx, storeId: string, customerId: string): Promise<unknown[]>;
  /** A store's own email templates by key (marketing), as overrides and extra keys for transactional mail. */
  templateKeys?(ctx: Ctx, storeId: string): Promise<string[]>;
  findTemplate?(ctx: Ctx, storeId: string, key: string): Promise<EmailTemplate | null>;
  /** Conditions on customers `c` for "has bought" audience filters (the orders module). */
  purchaseConditions?(filters: PurchaseConditions): SqlCondition[];
  /** Whether the customer still takes marketing email (the customers module's consent), asked as each marketing email goes out. */
  marketingConsent?(ctx: Ctx, storeId: string, customerId: string): Promise<boolean>;
  /** An unsubscribe through a link that names a campaign: marketing credits that campaign (in the caller's transaction). */
  creditUnsubscribe?(trx: Transaction, storeId: string, customerId: string, campaignId: string): Promise<void>;
  /** A tracked job run failed for good (the issues module raises a store issue for it). */
  jobFailed?(ctx: Ctx, run: { id: string; storeId: string | null; type: string }, message: string): Promise<void>;
  /** Reactions inside the transaction of the change, before it commits (webhook event rows: the transactional outbox). */
  onEventInTransaction?: { [T in DomainEventType]?: (ctx: Ctx, trx: Transaction, event: Extract<DomainEvent, { type: T }>) => Promise<void> };
  /**
   * The last statements of every transaction `withTransaction` opens (after the work and the
   * in-transaction reactions, before COMMIT; a failure rolls the change back; `outermost`: not
   * opened inside another's work): the audit log appends the transaction's entries to its chain
   * here, and in an outermost one the entry of an admin request whose service recorded none.
   * Statements it returns go out with the COMMIT, in its round trip (`runStatementsAndCommit`): the
   * audit entries' insert costs no round trip of its own.
   */
  beforeCommit?(ctx: Ctx, trx: Transaction, outermost: boolean): Promise<StatementCall[] | void>;
  /** A resource this module owns in the admin API's shape, read with the caller's handle (null: none): webhook payloads. */
  adminResource?: { [K in AdminResourceKind]?: (ctx: Ctx, db: Sql, storeId: string, id: string) => Promise<unknown> };
  /** The same for many ids in a few queries (a batch's webhook payloads): id -> resource, absent ids left out. */
  adminResources?: { [K in AdminResourceKind]?: (ctx: Ctx, db: Sql, storeId: string, ids: string[]) => Promise<Map<string, unknown>> };
  /** Reactions to committed domain events (cache invalidation, search documents, …). */
  onEvent?: { [T in DomainEventType]?: (ctx: Ctx, event: Extract<DomainEvent, { type: T }>) => Promise<void> };
}
