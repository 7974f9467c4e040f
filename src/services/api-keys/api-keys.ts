import type { AppContext } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { consumeRateLimit } from '../../platform/rate-limit.js';
import type { Role } from '../../platform/roles.js';
import { hashToken, randomSecret } from '../../platform/secrets.js';
import { recordAudit } from '../audit/index.js';
import { hasChecksummedLength, isChecksummedToken, newChecksummedToken } from '../../platform/checksum-tokens.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { effectiveScopes, type ApiKeyScope } from './scopes.js';

export const API_KEY_PREFIX = 'swk_';
const DISPLAY_PREFIX_LENGTH = 12;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Why a key stopped working: a person revoked it, or its creator left the store. */
export const API_KEY_REVOKED_REASONS = ['revoked', 'member_removed'] as const;
export type ApiKeyRevokedReason = (typeof API_KEY_REVOKED_REASONS)[number];

interface ApiKeyRow {
  id: string;
  storeId: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  createdBy: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedReason: ApiKeyRevokedReason | null;
  createdAt: Date;
}

/**
 * Who an API key request acts as: the key's store, its scopes, the member who created it and that
 * member's role in the store now (read with the key: a key acts within both its scopes and that role).
 */
export interface ApiKeyPrincipal {
  keyId: string;
  storeId: string;
  scopes: ApiKeyScope[];
  createdBy: string;
  creatorRole: Role;
}

const COLUMNS = ['id', 'storeId', 'name', 'prefix', 'scopes', 'createdBy', 'lastUsedAt', 'revokedAt', 'revokedReason', 'createdAt'];
const cacheKey = (hash: string) => `apikey:${hash}`;

interface Creator {
  email: string;
  /** Their role in the key's store now (null: no longer a member). */
  role: Role | null;
}

export const toApiKeyDto = (row: ApiKeyRow, creator: Creator | undefined) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  effectiveScopes: row.revokedAt ? [] : effectiveScopes(row.scopes, creator?.role ?? null),
  createdBy: { userId: row.createdBy, email: creator?.email ?? null },
  lastUsedAt: row.lastUsedAt,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
  revokedReason: row.revokedReason
});

/** The creators of some keys of a store: their email and their role there now. */
async function creatorsOf(db: Sql, storeId: string, userIds: string[]): Promise<Map<string, Creator>> {
  if (userIds.length === 0) return new Map();
  const rows: Array<{ id: string; email: string; role: Role | null }> = await db('users as u')
    .leftJoin('memberships as m', (join) => join.on('m.userId', '=', 'u.id').andOnVal('m.storeId', '=', storeId))
    .whereIn('u.id', [...new Set(userIds)])
    .select('u.id', 'u.email', 'm.role');
  return new Map(rows.map((row) => [row.id, { email: row.email, role: row.role }]));
}

async function toDtos(db: Sql, storeId: string, rows: ApiKeyRow[]) {
  const creators = await creatorsOf(db, storeId, rows.map((row) => row.createdBy));
  return rows.map((row) => toApiKeyDto(row, creators.get(row.createdBy)));
}

export async function createApiKey(ctx: AppContext, storeId: string, userId: string, input: { name: string; scopes: ApiKeyScope[] }) {
  // prefix + random + CRC32 (services/checksum-tokens.ts): scanners recognise it, a typo is refused unread.
  const secret = newChecksummedToken(API_KEY_PREFIX);
  const scopes = [...new Set(input.scopes)];
  const row = await withTransaction(ctx, async (trx) => {
    const [inserted] = await trx('apiKeys')
      .insert({ storeId, name: input.name, scopes, createdBy: userId, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), keyHash: hashToken(secret) })
      .returning(COLUMNS);
    await recordAudit(ctx, trx, { storeId, action: 'api_key.created', resourceType: 'api_key', resourceId: inserted.id, before: null, after: { name: input.name, scopes, prefix: inserted.prefix, createdBy: userId } });
    return inserted;
  });
  const [apiKey] = await toDtos(ctx.db, storeId, [row as ApiKeyRow]);
  return { apiKey: apiKey!, secret };
}

/** Oldest first, a page at a time; never the secret. */
export async function listApiKeys(ctx: AppContext, storeId: string, page: PageRequest) {
  const query = ctx.db('apiKeys').where({ storeId }).select(COLUMNS);
  const result = await keysetPage<ApiKeyRow>(query, { column: 'createdAt', direction: 'asc' }, page);
  return { apiKeys: await toDtos(ctx.db, storeId, result.items), nextCursor: result.nextCursor };
}

/**
 * Revokes a key; every process stops accepting it at once: the cache entry is dropped here and,
 * through the cache's invalidation channel, in every other process (as for storefront tokens).
 */
export async function revokeApiKey(ctx: AppContext, storeId: string, keyId: string) {
  const existing = await ctx.db('apiKeys').where({ storeId, id: keyId }).first('keyHash', 'revokedAt');
  if (!existing) throw notFound('API key');
  const row = await withTransaction(ctx, async (trx) => {
    const [updated] = await trx('apiKeys')
      .where({ storeId, id: keyId })
      .update({
        revokedAt: existing.revokedAt ?? trx.fn.now(),
        revokedReason: trx.raw(`coalesce(revoked_reason, 'revoked')`),
        updatedAt: trx.fn.now()
      })
      .returning(COLUMNS);
    if (!existing.revokedAt) await recordAudit(ctx, trx, { storeId, action: 'api_key.revoked', resourceType: 'api_key', resourceId: keyId, before: { revokedAt: null }, after: { revokedAt: updated.revokedAt, revokedReason: updated.revokedReason } });
    return updated;
  });
  await ctx.cache.invalidate(cacheKey(existing.keyHash));
  const [apiKey] = await toDtos(ctx.db, storeId, [row as ApiKeyRow]);
  return { apiKey: apiKey! };
}

/**
 * A member's keys when they leave a store: revoked (`member_removed`) in the transaction that
 * removes the membership, so a key never outlives it, nor comes back if the person is invited
 * again. Returns what the caller hands to `forgetApiKeys` once that transaction has committed.
 */
export async function revokeKeysOfMember(trx: Transaction, storeId: string, userId: string): Promise<string[]> {
  const rows: Array<{ keyHash: string }> = await trx('apiKeys')
    .where({ storeId, createdBy: userId })
    .whereNull('revokedAt')
    .update({ revokedAt: trx.fn.now(), revokedReason: 'member_removed', updatedAt: trx.fn.now() })
    .returning('keyHash');
  return rows.map((row) => cacheKey(row.keyHash));
}

/**
 * A member's live keys when their role changes: nothing is written (a key's scopes are narrowed at
 * request time by the creator's role), but every process must stop using the role it cached with
 * the key. Hand the answer to `forgetApiKeys` once the change has committed.
 */
export async function keysOfMember(db: Sql, storeId: string, userId: string): Promise<string[]> {
  const rows: Array<{ keyHash: string }> = await db('apiKeys').where({ storeId, createdBy: userId }).whereNull('revokedAt').select('keyHash');
  return rows.map((row) => cacheKey(row.keyHash));
}

/**
 * Drops cached keys here and, over the cache's invalidation channel (Redis pub/sub or PostgreSQL
 * NOTIFY), in every other process: the path a revoked key or storefront token takes. A lost
 * message is bounded by the cache TTL (STOREFRONT_CACHE_TTL_MS).
 */
export async function forgetApiKeys(ctx: AppContext, cacheKeys: string[]): Promise<void> {
  if (cacheKeys.length) await ctx.cache.invalidate(...cacheKeys);
}

/**
 * Resolves a presented `swk_` secret (null: unknown, revoked, or its creator is no longer a member
 * of its store). Cached per process like storefront tokens, with the same generation guard against a
 * revoke racing the read; `lastUsedAt` is written at most once a minute per key, off the request's path.
 */
export async function authenticateApiKey(ctx: AppContext, secret: string): Promise<ApiKeyPrincipal | null> {
  if (!secret.startsWith(API_KEY_PREFIX) || secret.length < API_KEY_PREFIX.length + 32 || secret.length > 200) return null;
  // A key of the checksummed form whose checksum does not add up is a typo (or a forgery): refused
  // without a cache or database lookup. Keys issued before checksums are longer and skip this.
  if (hasChecksummedLength(secret, API_KEY_PREFIX) && !isChecksummedToken(secret, API_KEY_PREFIX)) return null;
  const hash = hashToken(secret);
  let principal = ctx.cache.get<ApiKeyPrincipal | null>(cacheKey(hash));
  if (principal === undefined) {
    const generation = ctx.cache.generation();
    // The creator's membership is joined: without one the key answers nothing, even before (or
    // without) the revocation that removing the member writes.
    const row = await ctx
      .db('apiKeys as k')
      .join('memberships as m', (join) => join.on('m.storeId', '=', 'k.storeId').andOn('m.userId', '=', 'k.createdBy'))
      .where('k.keyHash', hash)
      .whereNull('k.revokedAt')
      .first('k.id', 'k.storeId', 'k.scopes', 'k.createdBy', 'm.role');
    principal = row ? { keyId: row.id, storeId: row.storeId, scopes: row.scopes, createdBy: row.createdBy, creatorRole: row.role } : null;
    if (principal) ctx.cache.set(cacheKey(hash), principal, generation);
  }
  if (principal) touchLastUsed(ctx, principal.storeId, principal.keyId);
  return principal;
}

/**
 * Which of these keys still work, with their scopes and their creator's role now: one statement for
 * all the keys an event-stream check holds (src/api/event-streams/), however many streams.
 */
export async function liveApiKeys(ctx: AppContext, refs: Array<{ storeId: string; keyId: string }>): Promise<Map<string, { scopes: ApiKeyScope[]; creatorRole: Role }>> {
  if (refs.length === 0) return new Map();
  const rows: Array<{ id: string; scopes: ApiKeyScope[]; role: Role }> = await ctx
    .db('apiKeys as k')
    .join('memberships as m', (join) => join.on('m.storeId', '=', 'k.storeId').andOn('m.userId', '=', 'k.createdBy'))
    .whereIn(['k.storeId', 'k.id'], refs.map((ref) => [ref.storeId, ref.keyId]))
    .whereNull('k.revokedAt')
    .select('k.id', 'k.scopes', 'm.role');
  return new Map(rows.map((row) => [row.id, { scopes: row.scopes, creatorRole: row.role }]));
}

/** Per key, shared by every web process (Redis), so an integration cannot starve its store's admins. */
export async function consumeApiKeyRate(ctx: AppContext, keyId: string): Promise<void> {
  await consumeRateLimit(ctx, `apikey:${keyId}`, ctx.config.rateLimits.apiKeyPerMinute);
}

const lastUsedWrites = new Map<string, number>();

function touchLastUsed(ctx: AppContext, storeId: string, keyId: string): void {
  const now = Date.now();
  if ((lastUsedWrites.get(keyId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
  if (lastUsedWrites.size > 10_000) lastUsedWrites.clear();
  lastUsedWrites.set(keyId, now);
  ctx.db('apiKeys')
    .where({ storeId, id: keyId })
    .update({ lastUsedAt: ctx.db.fn.now() })
    .catch((error: Error) => ctx.log.warn({ err: { message: error.message } }, 'could not record API key use'));
}
