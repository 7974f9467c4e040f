/**
 * Who writes each table: every table is written (insert, update, delete, upsert, COPY) only by
 * its owner; other modules call a function of the owner, or run a statement it exports. Reads are
 * free. Checked, at grep level, by test/unit/table-ownership.test.ts, which also fails when a migration
 * adds a table that is not listed here.
 *
 * An owner is a domain module, named as its folder under src/services/ (the one meaning of
 * "module": that folder, its index.ts face, its `Module` listed in src/installed-modules.ts), or
 * one of the platform's parts below.
 */
export const PLATFORM_OWNERS = {
  // The PostgreSQL adapters' own state (rate windows, slots, catalog versions).
  adapters: 'adapters/',
  outbox: 'platform/outbox/',
  idempotency: 'platform/idempotency/',
  'signed-requests': 'platform/signed-requests.ts'
} as const;

export type PlatformOwner = keyof typeof PLATFORM_OWNERS;

/** The source path (under src/) of an owner: its module folder, or its place in the platform. */
export const ownerPath = (owner: string): string => (owner in PLATFORM_OWNERS ? PLATFORM_OWNERS[owner as PlatformOwner] : `services/${owner}/`);

export const TABLE_OWNERS: Record<string, string> = {
  users: 'accounts',
  memberships: 'accounts',
  store_invites: 'accounts',
  password_resets: 'accounts',
  stores: 'stores',
  audit_log: 'audit',
  audit_pending: 'audit',
  tax_regions: 'taxes',
  storefront_tokens: 'stores',
  api_keys: 'api-keys',
  products: 'catalog',
  product_variants: 'catalog',
  product_media: 'catalog',
  media: 'catalog',
  collections: 'catalog',
  collection_products: 'catalog',
  inventory_ledger: 'catalog',
  // Kept by triggers on products, variants, product media and media (see catalog/module.ts).
  storefront_products: 'catalog',
  storefront_search: 'catalog',
  shipping_zones: 'shipping',
  shipping_rates: 'shipping',
  carts: 'checkout',
  cart_items: 'checkout',
  checkout_sessions: 'checkout',
  // A checkout's holds on stock: taken, converted and given back through the catalog's statements (catalog/stock-holds.ts).
  stock_reservations: 'catalog',
  orders: 'orders',
  draft_orders: 'draft-orders',
  draft_order_payments: 'draft-orders',
  // Payment links for an edit's balance: the invoice machinery of drafts (orders records the money on the timeline).
  order_balance_invoices: 'draft-orders',
  order_items: 'orders',
  fulfillments: 'orders',
  store_daily_revenue: 'orders',
  order_refunds: 'orders',
  order_disputes: 'orders',
  order_returns: 'orders',
  // Also written by a trigger on orders (the `placed` event).
  order_events: 'orders',
  store_payment_accounts: 'payments',
  stripe_events: 'payments',
  customers: 'customers',
  customer_import_emails: 'customers',
  // Rows of a customers import: the only kind of job that reports rows.
  job_row_errors: 'job-history',
  // Kept by triggers on customers (see customers/module.ts).
  store_customer_counts: 'customers',
  discounts: 'discounts',
  email_log: 'email',
  store_email_settings: 'email',
  outbox: 'outbox',
  backend_counters: 'adapters',
  backend_slot_claims: 'adapters',
  backend_values: 'adapters',
  jobs: 'job-history',
  store_issues: 'issues',
  store_domains: 'domains',
  external_system_links: 'external-system',
  campaigns: 'marketing',
  campaign_batches: 'marketing',
  campaign_recipients: 'marketing',
  campaign_clicks: 'marketing',
  marketing_lists: 'marketing',
  marketing_list_members: 'marketing',
  marketing_suppressions: 'marketing',
  marketing_templates: 'marketing',
  reviews: 'reviews',
  product_ratings: 'reviews',
  idempotency_keys: 'idempotency',
  webhook_receipts: 'signed-requests',
  webhook_subscriptions: 'webhooks',
  webhook_events: 'webhooks',
  webhook_deliveries: 'webhooks'
};
