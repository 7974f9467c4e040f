import type { ApiKeyScope } from '../services/api-keys/index.js';
import type { Tenant } from '../platform/roles.js';

type Access = { read: ApiKeyScope; write: ApiKeyScope } | null;

/**
 * The one map from admin routes to API key scopes, by path prefix (first match wins). `null`: no
 * API key may call it, whatever its scopes (team, keys, webhooks, payment and store settings are a
 * person's). GET and HEAD need `read`; every other method needs `write`. `adminRoute` stamps the
 * answer on each route (`plugins.apiKey`), where the auth plugin and the OpenAPI document read it;
 * a route under no prefix is refused to keys too.
 */
const ACCESS_BY_PREFIX: ReadonlyArray<[prefix: string, access: Access]> = [
  ['/admin/products', { read: 'read_products', write: 'write_products' }],
  ['/admin/collections', { read: 'read_products', write: 'write_products' }],
  ['/admin/reviews', { read: 'read_products', write: 'write_products' }],
  ['/admin/store/media', { read: 'read_products', write: 'write_products' }],
  ['/admin/orders', { read: 'read_orders', write: 'write_orders' }],
  ['/admin/draft-orders', { read: 'read_orders', write: 'write_orders' }],
  ['/admin/returns', { read: 'read_orders', write: 'write_orders' }],
  ['/admin/customers/export', { read: 'read_customers', write: 'read_customers' }],
  ['/admin/customers', { read: 'read_customers', write: 'write_customers' }],
  ['/admin/discounts', { read: 'marketing', write: 'marketing' }],
  // Tax rates are pricing: the catalog's scopes (writes are the owner's and admins' by role).
  ['/admin/tax-regions', { read: 'read_products', write: 'write_products' }],
  // The tax report is a read of orders and refunds (POST only starts the job).
  ['/admin/reports/tax', { read: 'read_orders', write: 'read_orders' }],
  ['/admin/marketing', { read: 'marketing', write: 'marketing' }],
  // Running a job again or cancelling one is a person's decision: read_jobs only follows jobs.
  ['/admin/jobs/{jobId}/retry', null],
  ['/admin/jobs/{jobId}/cancel', null],
  ['/admin/jobs', { read: 'read_jobs', write: 'read_jobs' }],
  ['/admin/shipping-zones', { read: 'read_shipping', write: 'write_shipping' }],
  // Reading the audit log (and exporting it: a read) is its own scope, never a write.
  ['/admin/store/audit-log', { read: 'read_audit', write: 'read_audit' }],
  // Everything else under /admin/store (settings, team, api-keys, webhooks, payments, domain, email, …).
  ['/admin/store', null]
];

/**
 * The scopes in words, from the map above, for the document's API key scheme: which paths each
 * scope opens (GET/HEAD with the read scope, other methods with the write one), and the data inside
 * answers that needs a scope of its own.
 */
export function apiKeyScopesSummary(): string {
  const paths = new Map<ApiKeyScope, string[]>();
  for (const [prefix, access] of ACCESS_BY_PREFIX) {
    if (!access) continue;
    const add = (scope: ApiKeyScope, what: string) => paths.set(scope, [...(paths.get(scope) ?? []), what]);
    if (access.read === access.write) add(access.read, `${prefix} (every method)`);
    else {
      add(access.read, `GET ${prefix}`);
      add(access.write, `POST/PUT/PATCH/DELETE ${prefix}`);
    }
  }
  const refused = ACCESS_BY_PREFIX.filter(([, access]) => !access).map(([prefix]) => `${prefix}/**`);
  return [
    ...[...paths].map(([scope, where]) => `\`${scope}\`: ${where.join(', ')}`),
    `No key at all: the rest of ${refused.join(', ')} (settings, team, API keys, webhooks, payments, domain, email), for signed-in members only`,
    "Customer data inside other answers needs `read_customers` too: an audience preview's sample, a review's email, a customer job's result or file (each job kind declares its result's scope; see the /admin/jobs operations)."
  ].join('. ');
}

const matches = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The scope an API key needs for this admin route, or null when no key may call it. */
export function apiKeyScopeFor(method: string, path: string): ApiKeyScope | null {
  const entry = ACCESS_BY_PREFIX.find(([prefix]) => matches(path, prefix));
  // A route nobody mapped yet is refused to keys: a new admin group opts in here.
  const access = entry?.[1] ?? null;
  if (!access) return null;
  return ['GET', 'HEAD'].includes(method.toUpperCase()) ? access.read : access.write;
}

/**
 * Whether the caller may see data of this scope inside an answer its route scope already let it
 * have (a job's result, an audience's sample customers): a signed-in member always (their role let
 * them in, and every role that reaches such a route reads that data too), an API key only holding it.
 */
export function holdsScope(tenant: Tenant, scope: ApiKeyScope): boolean {
  return !tenant.apiKeyId || (tenant.apiKeyScopes ?? []).includes(scope);
}
