/**
 * The document's tag list: what each route tag (a route's `options.tags` besides `api`, `admin` and
 * `storefront`) groups. A tag used by a route and missing here is still listed, without a
 * description, and test/integration/api/openapi-operations.test.ts fails until it has one.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  'api-keys': 'Admin API keys: scoped `swk_` bearer credentials for integrations',
  audit: "The store's audit log: who changed what, in a hash chain that shows tampering",
  auth: 'Sign-up, sign-in, tokens, password reset and team invites',
  carts: 'Storefront carts: items, addresses, shipping and discount codes',
  catalog: 'Products, variants, inventory, collections, product CSV import and export, bulk edits (admin and storefront)',
  checkout: 'Checkout sessions: reserve stock, take payment, place the order',
  customers: 'Customers, their CSV import and export',
  discounts: 'Discount codes and their rules',
  docs: 'This OpenAPI document',
  'draft-orders': 'Draft orders put together by hand, their invoices and the public links that pay them',
  domain: "The store's custom domain and its DNS checks",
  email: "The store's outgoing email: provider settings, checks and test sends",
  'external-system': 'The link to an external system and its product and customer backfills',
  health: 'Liveness and readiness of the service',
  internal: 'Signed receivers for other systems (Stripe, the hosting provider, the external system)',
  issues: "Problems the service found in the store's setup or jobs",
  jobs: 'Background jobs: status, progress events and results',
  marketing: 'Email marketing: lists, templates, campaigns and their delivery',
  media: 'Uploaded images',
  newsletter: 'Newsletter sign-up confirmation and unsubscribe links',
  orders: 'Orders, fulfilments, refunds, returns and their timeline',
  payments: 'Payment provider onboarding and payments',
  reviews: 'Product reviews and their moderation',
  shipping: 'Shipping zones and their rates (flat, weight and subtotal bands, pickup, free over an amount)',
  store: 'Store settings and dashboard',
  'storefront-tokens': 'Storefront tokens: the credentials a storefront reads the catalog and writes carts with',
  taxes: 'Tax regions and rates, and the tax report (docs/taxes.md)',
  team: 'Store members, roles and invites',
  webhooks: 'Outgoing webhook subscriptions and their deliveries'
};

/** Tags that say who calls a route (its security says that), not what it is about. */
export const AUDIENCE_TAGS = ['api', 'admin', 'storefront'];
