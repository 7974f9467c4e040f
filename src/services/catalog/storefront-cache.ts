import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.js';
import { bumpStorefrontVersion } from './catalog-version.js';
import { noteCatalogWrite } from './replica-routing.js';

/**
 * Storefront catalog responses, cached per process as the bytes that go on the wire (one copy: no
 * parsed object kept beside them), in an LRU bounded in BYTES (`STOREFRONT_CACHE_MAX_BYTES`): a
 * public token sending endless distinct filters only churns the LRU, it cannot grow the process.
 *
 * Invalidation: each store has a current "catalog version" kept in the LocalCache; every entry key
 * carries it. Every catalog write (through the domain event the catalog module answers) calls
 * `invalidateStorefrontCatalog`, which drops the version here
 * and, through the LocalCache's Redis pub/sub, in every other process: the next read starts a new
 * version, and entries of the old one are never read again (the LRU evicts them). A result computed
 * while a write happened is stored under the version it started with, so it is never served. Entries
 * also expire after `STOREFRONT_CACHE_TTL_MS`, bounding staleness from a lost message.
 */
const ENTRY_OVERHEAD_BYTES = 200;
/** br and gzip copies, made on first request for each, add about 40% of the plain body (measured: 17% + 20%). */
const COMPRESSED_SHARE = 0.4;

/** A response body as it goes on the wire, and its compressed codings once a client asked for them. */
export interface CachedBody {
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

const caches = new WeakMap<AppContext, LRUCache<string, CachedBody>>();

function bodyCache(ctx: AppContext): LRUCache<string, CachedBody> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new LRUCache<string, CachedBody>({
      maxSize: Math.max(ctx.config.storefrontCacheMaxBytes, 1),
      // Larger than the whole cache: not cached at all (rather than evicting everything for it).
      maxEntrySize: Math.max(ctx.config.storefrontCacheMaxBytes, 1),
      sizeCalculation: (body, key) => Math.ceil(body.identity.length * (1 + COMPRESSED_SHARE)) + key.length * 2 + ENTRY_OVERHEAD_BYTES,
      ttl: ctx.config.storefrontCacheTtlMs,
      ttlAutopurge: false
    });
    caches.set(ctx, cache);
  }
  return cache;
}

const versionKey = (storeId: string) => `sfcatalog:${storeId}`;

function catalogVersion(ctx: AppContext, storeId: string): string {
  const current = ctx.cache.get<string>(versionKey(storeId));
  if (current) return current;
  const generation = ctx.cache.generation();
  const fresh = randomUUID();
  ctx.cache.set(versionKey(storeId), fresh, generation);
  return fresh;
}

/** The cached body for (store, key), or `produce`'s, stored when caching is on and it fits. */
export async function cachedStorefrontBody(ctx: AppContext, storeId: string, key: string, produce: () => Promise<Buffer>): Promise<CachedBody> {
  if (ctx.config.storefrontCacheTtlMs === 0 || ctx.config.storefrontCacheMaxBytes === 0) return { identity: await produce() };
  const cache = bodyCache(ctx);
  const entryKey = `${storeId}:${catalogVersion(ctx, storeId)}:${key}`;
  const hit = cache.get(entryKey);
  if (hit) return hit;
  const body: CachedBody = { identity: await produce() };
  cache.set(entryKey, body);
  return body;
}

/** Bytes and entries held, for tests and diagnostics. */
export function storefrontCacheUsage(ctx: AppContext): { bytes: number; entries: number } {
  const cache = caches.get(ctx);
  return { bytes: cache?.calculatedSize ?? 0, entries: cache?.size ?? 0 };
}

/** Call after any change a storefront could see: products, variants, stock, collections, media links. */
export async function invalidateStorefrontCatalog(ctx: AppContext, storeId: string): Promise<void> {
  // First the read replica's requirement (the write's WAL position): reads under the new version
  // never run on a replica that has not replayed this write.
  await noteCatalogWrite(ctx, storeId);
  await ctx.cache.invalidate(versionKey(storeId));
  // Then the HTTP version (ETags): in this order, a request in between pairs the old version with
  // new data (the next revalidation gets a 200), never the new version with old data.
  await bumpStorefrontVersion(ctx, storeId);
}
