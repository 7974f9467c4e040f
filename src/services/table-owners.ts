/**
 * Who writes each table: every table is written (insert, update, delete, upsert, COPY) only by
 * its owning module; other modules call a function of that module. Reads are free. Checked, at
 * grep level, by test/table-ownership.test.ts, which also fails when a migration adds a table
 * that is not listed here. Paths are relative to src/services/.
 */
export const MODULES_BY_PATH = {
  // The PostgreSQL adapters' own state (rate windows, slots, catalog versions): infrastructure, not a service.
  adapters: ['../adapters/'],
  accounts: ['auth.ts', 'users.ts', 'password-reset.ts', 'team/'],
  'api-keys': ['api-keys/'],
  audit: ['audit/'],
  catalog: ['catalog/'],
  checkout: ['carts/', 'checkout/'],
  customers: ['customers/'],
  discounts: ['discounts.ts'],
  domains: ['domains/'],
  email: ['email/'],
  'external-system': ['external-system/'],
  idempotency: ['idempotency/'],
  issues: ['issues/'],
  'job-history': ['job-history/'],
  marketing: ['marketing/'],
  orders: ['orders/'],
  outbox: ['outbox/'],
  payments: ['payments/'],
  reviews: ['reviews/'],
  'signed-requests': ['signed-requests.ts'],
  stores: ['stores.ts'],
  'storefront-tokens': ['storefront-tokens.ts'],
  webhooks: ['webhooks/']
} as const satisfies Record<string, readonly string[]>;

export type OwningModule = keyof typeof MODULES_BY_PATH;

export const TABLE_OWNERS: Record<string, OwningModule> = {
  users: 'accounts',
  memberships: 'accounts',
  store_invites: 'accounts',
  password_resets: 'accounts',
  stores: 'stores',
  storefront_tokens: 'storefront-tokens',
  api_keys: 'api-keys',
  audit_log: 'audit',
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
  carts: 'checkout',
  cart_items: 'checkout',
  checkout_sessions: 'checkout',
  stock_reservations: 'checkout',
  orders: 'orders',
  order_items: 'orders',
  fulfillments: 'orders',
  store_daily_revenue: 'orders',
  order_refunds: 'orders',
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
  backend_slots: 'adapters',
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

/**
 * Writes that still happen outside a table's owner, each with why. The list may only shrink: the
 * ownership test fails on a foreign write not listed here, and on an entry that no longer writes.
 * Most sit on the checkout path, where the owner's write is one statement of a round trip the
 * caller composes; the way out is for the owner to export that statement (as catalog does with
 * `upsertExternalProducts`) and the caller to run it.
 */
export const FOREIGN_WRITES: ReadonlyArray<{ table: string; file: string; why: string }> = [
  {
    table: 'customers',
    file: 'orders/create-order.ts',
    why: 'confirm creates or links the customer (counting orders and spend) in the statement that completes the order'
  },
  { table: 'outbox', file: 'orders/create-order.ts', why: 'the drawn order number is written into the confirmation email already in the outbox, in the same statement' },
  { table: 'discounts', file: 'carts/discount-rules.ts', why: 'a checkout session counts its discount use under the session lock order (cart, session, variants, discount)' },
  { table: 'product_variants', file: 'checkout/reservations.ts', why: 'a checkout session takes and gives back stock in its own statements (one round trip per step)' },
  { table: 'inventory_ledger', file: 'checkout/reservations.ts', why: 'the ledger rows of those stock moves, in the same statements' },
  { table: 'checkout_sessions', file: 'payments/payment-events.ts', why: 'a failed payment event marks the pending session failed' },
  { table: 'jobs', file: 'customers/import-batch.ts', why: "each import partition's checkpoint is written in the batch's own transaction, on its COPY connection" },
  { table: 'job_row_errors', file: 'customers/import-batch.ts', why: "the batch's bad rows, in the same transaction on the same COPY connection (the table moved to job-history when product imports began to use it)" }
];
