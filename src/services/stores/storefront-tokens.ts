import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { hashToken, randomSecret } from '../../platform/secrets.js';
import type { Sql } from '../../db/transaction.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { recordAudit } from '../audit/index.js';

export const STOREFRONT_TOKEN_PREFIX = 'swsf_';
const DISPLAY_PREFIX_LENGTH = 12;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

interface TokenRow {
  id: string;
  storeId: string;
  name: string;
  prefix: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface StorefrontPrincipal {
  storeId: string;
  tokenId: string;
}

export const toTokenDto = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  lastUsedAt: row.lastUsedAt,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt
});

const cacheKey = (hash: string) => `sft:${hash}`;
const COLUMNS = ['id', 'storeId', 'name', 'prefix', 'lastUsedAt', 'revokedAt', 'createdAt'];

export function newStorefrontSecret(): string {
  return `${STOREFRONT_TOKEN_PREFIX}${randomSecret(32)}`;
}

/** Inserts a token row for a fresh secret; used by signup inside its transaction. */
export async function insertStorefrontToken(db: Sql, storeId: string, name: string, secret: string): Promise<TokenRow> {
  const [row] = await db('storefrontTokens')
    .insert({ storeId, name, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), tokenHash: hashToken(secret) })
    .returning(COLUMNS);
  return row as TokenRow;
}

/** Oldest first (the signup's default token leads), a page at a time. */
export async function listStorefrontTokens(ctx: AppContext, storeId: string, page: PageRequest) {
  const query = ctx.db('storefrontTokens').where({ storeId }).select(COLUMNS);
  const result = await keysetPage<TokenRow>(query, { column: 'createdAt', direction: 'asc' }, page);
  return { tokens: result.items.map(toTokenDto), nextCursor: result.nextCursor };
}

export async function createStorefrontToken(ctx: AppContext, storeId: string, name: string) {
  const secret = newStorefrontSecret();
  const row = await withTransaction(ctx, async (trx) => {
    const inserted = await insertStorefrontToken(trx, storeId, name, secret);
    await recordAudit(ctx, trx, { storeId, action: 'storefront_token.created', resourceType: 'storefront_token', resourceId: inserted.id, before: null, after: { name, prefix: inserted.prefix } });
    return inserted;
  });
  return { token: toTokenDto(row), secret };
}

async function findToken(db: Sql, storeId: string, tokenId: string): Promise<TokenRow & { tokenHash: string }> {
  const row = await db('storefrontTokens').where({ storeId, id: tokenId }).first([...COLUMNS, 'tokenHash']);
  if (!row) throw notFound('Storefront token');
  return row;
}

/**
 * A new secret for the same token record; the old secret stops working at once. A revoked token stays
 * revoked: rotating it is 409 `token_revoked` (the check is in the UPDATE, so a revoke racing the
 * rotate cannot be undone by it).
 */
export async function rotateStorefrontToken(ctx: AppContext, storeId: string, tokenId: string) {
  const existing = await findToken(ctx.db, storeId, tokenId);
  const secret = newStorefrontSecret();
  const row = await withTransaction(ctx, async (trx) => {
    const [updated] = await trx('storefrontTokens')
      .where({ storeId, id: tokenId, tokenHash: existing.tokenHash })
      .whereNull('revokedAt')
      .update({ tokenHash: hashToken(secret), prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), updatedAt: trx.fn.now() })
      .returning(COLUMNS);
    if (updated) await recordAudit(ctx, trx, { storeId, action: 'storefront_token.rotated', resourceType: 'storefront_token', resourceId: tokenId, before: { prefix: existing.prefix }, after: { prefix: updated.prefix } });
    return updated;
  });
  await ctx.cache.invalidate(cacheKey(existing.tokenHash));
  if (!row) {
    if (existing.revokedAt) throw conflict('token_revoked', 'This storefront token is revoked; create a new token instead');
    throw conflict('conflict', 'The token changed while it was being rotated; try again');
  }
  return { token: toTokenDto(row as TokenRow), secret };
}

export async function revokeStorefrontToken(ctx: AppContext, storeId: string, tokenId: string) {
  const existing = await findToken(ctx.db, storeId, tokenId);
  const row = await withTransaction(ctx, async (trx) => {
    const [updated] = await trx('storefrontTokens')
      .where({ storeId, id: tokenId })
      .update({ revokedAt: existing.revokedAt ?? trx.fn.now(), updatedAt: trx.fn.now() })
      .returning(COLUMNS);
    if (!existing.revokedAt) await recordAudit(ctx, trx, { storeId, action: 'storefront_token.revoked', resourceType: 'storefront_token', resourceId: tokenId, before: { revokedAt: null }, after: { revokedAt: updated.revokedAt } });
    return updated;
  });
  await ctx.cache.invalidate(cacheKey(existing.tokenHash));
  return { token: toTokenDto(row as TokenRow) };
}

const lastUsedWrites = new Map<string, number>();

/**
 * SHA-256 of a presented secret, remembered: a store's storefront token is the same string on every
 * request of every shopper, so hashing it each time is work thrown away. Bounded: random secrets
 * (which the database refuses anyway) only churn it.
 */
const secretHashes = new Map<string, string>();
const MAX_SECRET_HASHES = 1_000;

function secretHash(secret: string): string {
  let hash = secretHashes.get(secret);
  if (hash === undefined) {
    hash = hashToken(secret);
    if (secretHashes.size >= MAX_SECRET_HASHES) secretHashes.clear();
    secretHashes.set(secret, hash);
  }
  return hash;
}

/**
 * Resolves a presented secret to its store. Hot path of every storefront request: answered from the
 * local cache after the first hit; `lastUsedAt` is written at most once a minute per token, off the
 * request's critical path.
 */
export async function authenticateStorefrontToken(ctx: AppContext, secret: string): Promise<StorefrontPrincipal | null> {
  if (!secret.startsWith(STOREFRONT_TOKEN_PREFIX) || secret.length < STOREFRONT_TOKEN_PREFIX.length + 32) return null;
  const hash = secretHash(secret);
  let principal = ctx.cache.get<StorefrontPrincipal | null>(cacheKey(hash));
  if (principal === undefined) {
    // Taken before the read: a revoke that lands while the row is being read bumps the generation,
    // and the stale answer is then not cached (it would otherwise outlive the revoke for a whole TTL).
    const generation = ctx.cache.generation();
    const row = await ctx.db('storefrontTokens').where({ tokenHash: hash }).whereNull('revokedAt').first('id', 'storeId');
    principal = row ? { storeId: row.storeId, tokenId: row.id } : null;
    if (principal) ctx.cache.set(cacheKey(hash), principal, generation);
  }
  if (principal) touchLastUsed(ctx, principal.tokenId);
  return principal;
}

function touchLastUsed(ctx: AppContext, tokenId: string): void {
  const now = Date.now();
  if ((lastUsedWrites.get(tokenId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
  lastUsedWrites.set(tokenId, now);
  ctx.db('storefrontTokens')
    .where({ id: tokenId })
    .update({ lastUsedAt: ctx.db.fn.now() })
    .catch((error: Error) => ctx.log.warn({ err: { message: error.message } }, 'could not record token use'));
}
