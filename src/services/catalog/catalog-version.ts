import { randomBytes } from 'node:crypto';
import type { StorefrontHttpState } from '../../adapters/storefront-versions/index.js';
import type { AppContext } from '../../context.js';

/**
 * What a storefront GET needs before it touches the database: the store's catalog version (the
 * ETag's first half) and its Cache-Control header. Kept in the backends' shared store (Redis or
 * PostgreSQL, shared by every web process) and memoised per process in the LocalCache, whose pub/sub
 * drops the memo everywhere when the version moves. A revalidation whose version has not changed never reaches PostgreSQL.
 *
 * The version is a random token, never a counter: if the store loses the key, the next reader makes a
 * new token, so an ETag issued before can never match again by accident.
 */
export type { StorefrontHttpState };

const memoKey = (storeId: string) => `sfhttp:${storeId}`;
const newVersion = () => randomBytes(9).toString('base64url');

export const cacheControlHeader = (maxAge: number, staleWhileRevalidate: number) =>
  `public, max-age=${maxAge}, stale-while-revalidate=${staleWhileRevalidate}`;

export function storefrontHttpState(ctx: AppContext, storeId: string): Promise<StorefrontHttpState> {
  let memo = ctx.cache.get<Promise<StorefrontHttpState>>(memoKey(storeId));
  if (!memo) {
    // The promise is memoised before the read starts: an invalidation that lands during the read
    // removes it, so a version read before a bump is never kept after it.
    memo = readState(ctx, storeId);
    ctx.cache.set(memoKey(storeId), memo);
    memo.catch(() => void ctx.cache.invalidate(memoKey(storeId)).catch(() => undefined));
  }
  return memo;
}

async function readState(ctx: AppContext, storeId: string): Promise<StorefrontHttpState> {
  const stored = await ctx.backends.storefrontVersions.get(storeId);
  if (stored) return stored;
  const store: { storefrontCacheMaxAge: number; storefrontCacheStaleWhileRevalidate: number } | undefined = await ctx
    .db('stores')
    .where({ id: storeId })
    .first('storefrontCacheMaxAge', 'storefrontCacheStaleWhileRevalidate');
  const cacheControl = cacheControlHeader(store?.storefrontCacheMaxAge ?? 60, store?.storefrontCacheStaleWhileRevalidate ?? 300);
  // Keeps a version another process wrote first; both then answer with the same one.
  return ctx.backends.storefrontVersions.init(storeId, newVersion(), cacheControl);
}

/**
 * After a committed change a storefront could see (catalog, store settings): a new version, so
 * every ETag issued before stops matching in every process.
 */
export async function bumpStorefrontVersion(ctx: AppContext, storeId: string): Promise<void> {
  try {
    await ctx.backends.storefrontVersions.drop(storeId);
  } finally {
    await ctx.cache.invalidate(memoKey(storeId));
  }
}
