import type { Role } from '../../platform/roles.js';

/** What an admin API key may be granted; each admin route needs at most one (src/api/api-key-scopes.ts). */
export const API_KEY_SCOPES = [
  'read_products',
  'write_products',
  'read_orders',
  'write_orders',
  'read_customers',
  'write_customers',
  'marketing',
  'read_jobs',
  'read_audit',
  'read_shipping',
  'write_shipping'
] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * The scopes each role's rights cover: a scope is here when the role may call at least one route
 * that needs it (test/integration/stores/api-keys.test.ts checks this against the registered routes). Staff get the
 * catalog, orders and customers and may read shipping zones, never marketing or jobs.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly ApiKeyScope[]>> = {
  owner: API_KEY_SCOPES,
  admin: API_KEY_SCOPES,
  staff: ['read_products', 'write_products', 'read_orders', 'write_orders', 'read_customers', 'write_customers', 'read_shipping']
};

/**
 * What a key may do now: its own scopes that its creator's current role also grants (none once the
 * creator is no longer a member). Computed on every request from the role read with the key, so a
 * lowered role narrows the key at once and a raised one gives back no more than the key was granted.
 */
export function effectiveScopes(scopes: readonly ApiKeyScope[], creatorRole: Role | null): ApiKeyScope[] {
  if (!creatorRole) return [];
  return scopes.filter((scope) => ROLE_SCOPES[creatorRole].includes(scope));
}
