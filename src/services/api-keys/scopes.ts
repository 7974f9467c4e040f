/** What an admin API key may be granted; each admin route needs at most one (src/api/api-key-scopes.ts). */
export const API_KEY_SCOPES = [
  'read_products',
  'write_products',
  'read_orders',
  'write_orders',
  'read_customers',
  'write_customers',
  'marketing',
  'read_jobs'
] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
