import type { ApiKeyScope } from '../services/api-keys/scopes.js';

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
  ['/admin/returns', { read: 'read_orders', write: 'write_orders' }],
  ['/admin/customers/export', { read: 'read_customers', write: 'read_customers' }],
  ['/admin/customers', { read: 'read_customers', write: 'write_customers' }],
  ['/admin/discounts', { read: 'marketing', write: 'marketing' }],
  ['/admin/marketing', { read: 'marketing', write: 'marketing' }],
  ['/admin/jobs', { read: 'read_jobs', write: 'read_jobs' }],
  // Reading the audit log (and exporting it: a read) is its own scope, never a write.
  ['/admin/store/audit-log', { read: 'read_audit', write: 'read_audit' }],
  // Everything else under /admin/store (settings, team, api-keys, webhooks, payments, domain, email, …).
  ['/admin/store', null]
];

const matches = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The scope an API key needs for this admin route, or null when no key may call it. */
export function apiKeyScopeFor(method: string, path: string): ApiKeyScope | null {
  const entry = ACCESS_BY_PREFIX.find(([prefix]) => matches(path, prefix));
  // A route nobody mapped yet is refused to keys: a new admin group opts in here.
  const access = entry?.[1] ?? null;
  if (!access) return null;
  return ['GET', 'HEAD'].includes(method.toUpperCase()) ? access.read : access.write;
}
