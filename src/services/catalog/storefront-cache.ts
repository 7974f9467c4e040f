import type { AppContext } from '../../context.js';
import { bumpStorefrontVersion } from './catalog-version.js';

/**
 * Storefront catalog reads, cached in-process per store. Every catalog write emits a domain event
 * that the catalog module answers with `invalidateStorefrontCatalog`, which drops the store's whole entry set here and, through the
 * LocalCache's Redis pub/sub, in every other process. A result computed while a write happened is
 * stored into the set it started with, which the write already detached, so it is never served.
 * Entries also expire after a short TTL, bounding staleness from writes that bypass the services
 * (stock taken by a checkout that forgets to invalidate shows as available for at most that long;
 * checkout itself still enforces stock).
 */
const MAX_ENTRIES_PER_STORE = 1000;

interface Entry {
  value: unknown;
  expiresAt: number;
}

const storeKey = (storeId: string) => `sfcatalog:${storeId}`;

export async function cachedStorefrontRead<T>(ctx: AppContext, storeId: string, key: string, load: () => Promise<T>): Promise<T> {
  const ttl = ctx.config.storefrontCacheTtlMs;
  if (ttl === 0) return load();
  let entries = ctx.cache.get<Map<string, Entry>>(storeKey(storeId));
  if (!entries) {
    entries = new Map();
    ctx.cache.set(storeKey(storeId), entries);
  }
  const hit = entries.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.value as T;
  const value = await load();
  if (entries.size >= MAX_ENTRIES_PER_STORE) entries.clear();
  entries.set(key, { value, expiresAt: Date.now() + ttl });
  return value;
}

/** Call after any change a storefront could see: products, variants, stock, collections, media links. */
export async function invalidateStorefrontCatalog(ctx: AppContext, storeId: string): Promise<void> {
  await ctx.cache.invalidate(storeKey(storeId));
  // Then the HTTP version (ETags): in this order, a request in between pairs the old version with
  // new data (the next revalidation gets a 200), never the new version with old data.
  await bumpStorefrontVersion(ctx, storeId);
}
