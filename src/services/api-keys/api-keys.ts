import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { consumeRateLimit } from '../../platform/rate-limit.js';
import { hashToken, randomSecret } from '../../platform/secrets.js';
import type { ApiKeyScope } from './scopes.js';

export const API_KEY_PREFIX = 'swk_';
const DISPLAY_PREFIX_LENGTH = 12;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

interface ApiKeyRow {
  id: string;
  storeId: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  createdBy: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/** Who an API key request acts as: the key's store, its scopes, and the member who created it. */
export interface ApiKeyPrincipal {
  keyId: string;
  storeId: string;
  scopes: ApiKeyScope[];
  createdBy: string;
}

const COLUMNS = ['id', 'storeId', 'name', 'prefix', 'scopes', 'createdBy', 'lastUsedAt', 'revokedAt', 'createdAt'];
const cacheKey = (hash: string) => `apikey:${hash}`;

export const toApiKeyDto = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  lastUsedAt: row.lastUsedAt,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt
});

export async function createApiKey(ctx: AppContext, storeId: string, userId: string, input: { name: string; scopes: ApiKeyScope[] }) {
  const secret = `${API_KEY_PREFIX}${randomSecret(32)}`;
  const scopes = [...new Set(input.scopes)];
  const [row] = await ctx.db('apiKeys')
    .insert({ storeId, name: input.name, scopes, createdBy: userId, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), keyHash: hashToken(secret) })
    .returning(COLUMNS);
  return { apiKey: toApiKeyDto(row as ApiKeyRow), secret };
}

/** Oldest first, a page at a time; never the secret. */
export async function listApiKeys(ctx: AppContext, storeId: string, page: PageRequest) {
  const query = ctx.db('apiKeys').where({ storeId }).select(COLUMNS);
  const result = await keysetPage<ApiKeyRow>(query, { column: 'createdAt', direction: 'asc' }, page);
  return { apiKeys: result.items.map(toApiKeyDto), nextCursor: result.nextCursor };
}

/**
 * Revokes a key; every process stops accepting it at once: the cache entry is dropped here and,
 * through the cache's invalidation channel, in every other process (as for storefront tokens).
 */
export async function revokeApiKey(ctx: AppContext, storeId: string, keyId: string) {
  const existing = await ctx.db('apiKeys').where({ storeId, id: keyId }).first('keyHash', 'revokedAt');
  if (!existing) throw notFound('API key');
  const [row] = await ctx.db('apiKeys')
    .where({ storeId, id: keyId })
    .update({ revokedAt: existing.revokedAt ?? ctx.db.fn.now(), updatedAt: ctx.db.fn.now() })
    .returning(COLUMNS);
  await ctx.cache.invalidate(cacheKey(existing.keyHash));
  return { apiKey: toApiKeyDto(row as ApiKeyRow) };
}

/**
 * Resolves a presented `swk_` secret (null: unknown or revoked). Cached per process like storefront
 * tokens, with the same generation guard against a revoke racing the read; `lastUsedAt` is written
 * at most once a minute per key, off the request's path.
 */
export async function authenticateApiKey(ctx: AppContext, secret: string): Promise<ApiKeyPrincipal | null> {
  if (!secret.startsWith(API_KEY_PREFIX) || secret.length < API_KEY_PREFIX.length + 32 || secret.length > 200) return null;
  const hash = hashToken(secret);
  let principal = ctx.cache.get<ApiKeyPrincipal | null>(cacheKey(hash));
  if (principal === undefined) {
    const generation = ctx.cache.generation();
    const row = await ctx.db('apiKeys').where({ keyHash: hash }).whereNull('revokedAt').first('id', 'storeId', 'scopes', 'createdBy');
    principal = row ? { keyId: row.id, storeId: row.storeId, scopes: row.scopes, createdBy: row.createdBy } : null;
    if (principal) ctx.cache.set(cacheKey(hash), principal, generation);
  }
  if (principal) touchLastUsed(ctx, principal.keyId);
  return principal;
}

/** Per key, shared by every web process (Redis), so an integration cannot starve its store's admins. */
export async function consumeApiKeyRate(ctx: AppContext, keyId: string): Promise<void> {
  await consumeRateLimit(ctx, `apikey:${keyId}`, ctx.config.rateLimits.apiKeyPerMinute);
}

const lastUsedWrites = new Map<string, number>();

function touchLastUsed(ctx: AppContext, keyId: string): void {
  const now = Date.now();
  if ((lastUsedWrites.get(keyId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
  if (lastUsedWrites.size > 10_000) lastUsedWrites.clear();
  lastUsedWrites.set(keyId, now);
  ctx.db('apiKeys')
    .where({ id: keyId })
    .update({ lastUsedAt: ctx.db.fn.now() })
    .catch((error: Error) => ctx.log.warn({ err: { message: error.message } }, 'could not record API key use'));
}
