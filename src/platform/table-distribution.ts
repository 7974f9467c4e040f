/**
 * How each table would be placed on a Citus cluster sharded by store (issue #27, docs/scaling.md).
 * Checked by test/integration/platform/citus-rules.test.ts, which fails when a table the migrations leave is not listed
 * here, and on any store-scoped table whose keys or foreign keys leave out `store_id`.
 *
 * - `store`: distributed by `store_id`, all co-located with one another. `store_id` is NOT NULL,
 *   part of the primary key and of every unique constraint, and of every foreign key to another
 *   store-scoped table; every statement that reads or writes one names `store_id`.
 * - `reference`: platform tables, copied whole to every node. Small, read far more than written, and
 *   looked up before the store is known (login by email, a storefront token, an API key, a hostname,
 *   a Stripe account): they keep their global unique keys. Store-scoped tables may refer to them.
 * - `local`: infrastructure kept on the coordinator only, never joined with store-scoped tables in one
 *   statement: migration bookkeeping, the adapters' own state, the outbox relay's queue, job history
 *   (a job may belong to no store), and the dedupe keys of inbound signed requests.
 */
export type Distribution = 'store' | 'reference' | 'local';

export const TABLE_DISTRIBUTION: Record<string, Distribution> = {
  // Platform: who is who, which store is which, and the lookups that find a store from a secret or a name.
  users: 'reference',
  stores: 'reference',
  memberships: 'reference', // a user's stores are listed across stores at login
  store_invites: 'reference', // accepted by token hash, before the store is known
  password_resets: 'reference', // per user, no store
  storefront_tokens: 'reference', // a storefront request finds its store by token hash
  api_keys: 'reference', // an API request finds its store by key hash
  store_domains: 'reference', // a storefront request finds its store by hostname
  store_payment_accounts: 'reference', // a Stripe Connect event finds its store by account id
  stripe_events: 'reference', // Stripe's event ids, deduplicated before the store is known

  // Infrastructure, on the coordinator.
  knex_migrations: 'local',
  knex_migrations_lock: 'local',
  backend_counters: 'local',
  backend_slot_claims: 'local',
  backend_values: 'local',
  outbox: 'local',
  jobs: 'local', // platform jobs have no store (store_id is nullable)
  job_row_errors: 'local', // rows of a job
  customer_import_emails: 'local', // a job's scratch space: (job id, email, latest line)
  email_log: 'local', // platform mail (password resets, invites) has no store
  webhook_receipts: 'local', // inbound signature dedupe, before the store is known

  // Distributed by store_id, co-located.
  audit_log: 'store',
  audit_pending: 'store',
  tax_regions: 'store',
  products: 'store',
  product_variants: 'store',
  product_media: 'store',
  media: 'store',
  collections: 'store',
  collection_products: 'store',
  inventory_ledger: 'store',
  storefront_products: 'store',
  storefront_search: 'store',
  shipping_zones: 'store',
  shipping_rates: 'store',
  carts: 'store',
  cart_items: 'store',
  checkout_sessions: 'store',
  stock_reservations: 'store',
  orders: 'store',
  order_items: 'store',
  order_events: 'store',
  order_refunds: 'store',
  order_disputes: 'store',
  draft_orders: 'store',
  draft_order_payments: 'store',
  order_balance_invoices: 'store',
  order_returns: 'store',
  fulfillments: 'store',
  store_daily_revenue: 'store',
  customers: 'store',
  store_customer_counts: 'store',
  discounts: 'store',
  store_email_settings: 'store',
  store_issues: 'store',
  external_system_links: 'store',
  idempotency_keys: 'store',
  reviews: 'store',
  product_ratings: 'store',
  campaigns: 'store',
  campaign_batches: 'store',
  campaign_recipients: 'store',
  campaign_clicks: 'store',
  marketing_lists: 'store',
  marketing_list_members: 'store',
  marketing_suppressions: 'store',
  marketing_templates: 'store',
  webhook_subscriptions: 'store',
  webhook_events: 'store',
  webhook_deliveries: 'store'
};

export const STORE_SCOPED_TABLES = Object.keys(TABLE_DISTRIBUTION).filter((t) => TABLE_DISTRIBUTION[t] === 'store');
