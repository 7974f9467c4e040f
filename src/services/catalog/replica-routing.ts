import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import { currentWalLsn } from '../../db/read-replica.js';
import { AppError } from '../../errors.js';

/**
 * Which database a storefront catalog read (product lists and search, a product, collections,
 * reviews) runs on: the read replica (`ctx.replica`, REPLICA_DATABASE_URL) when it is in use and
 * has replayed the store's latest catalog write, else the primary. Admin reads, carts, checkout and
 * every write never come here: they use `ctx.db`, the primary.
 *
 * Read-your-writes. After a catalog write commits, `noteCatalogWrite` (called from the catalog's
 * invalidation, before the storefront cache moves to a new version) reads the primary's WAL
 * position, which is at or past the write's commit record, and keeps it per store in the
 * LocalCache (key `replica-lsn:<store>`) as the position a replica must have replayed to serve that
 * store. A read whose replica has not (as of its last probe) goes to the primary, and asks for an
 * early probe.
 *
 * Across processes. The LocalCache carries keys, not values: `noteCatalogWrite` invalidates the
 * store's key everywhere (one more message on the existing invalidation channel, published before
 * the catalog version's: messages on it arrive in order). A process that finds the key missing
 * (after that message, after its TTL, or at start) asks the primary for its current WAL position,
 * which is at or past every write whose invalidation it had received, and keeps it as the store's
 * requirement: one small primary query per store and invalidation per process. With the LocalCache
 * off (STOREFRONT_CACHE_TTL_MS=0) nothing is kept, and every replica-bound read asks the primary first.
 */
const requirementKey = (storeId: string) => `replica-lsn:${storeId}`;

/** Runs a storefront catalog read on the replica when that is safe for this store, else on the primary. */
export async function readCatalog<T>(ctx: AppContext, storeId: string, read: (db: Knex) => Promise<T>): Promise<T> {
  const replica = ctx.replica;
  if (!replica?.usable()) return read(ctx.db);
  const required = await requiredLsn(ctx, storeId);
  if (!replica.hasReplayed(required)) {
    replica.probeSoon();
    return read(ctx.db);
  }
  try {
    return await read(replica.db);
  } catch (error) {
    // An answer (404) is the answer; anything else failed on the replica (it went away, a recovery
    // conflict cancelled the statement): a read is safe to repeat, so the primary answers instead.
    if (error instanceof AppError) throw error;
    replica.readFailed(error);
    return read(ctx.db);
  }
}

/** The WAL position the replica must have replayed before it may serve this store's catalog. */
function requiredLsn(ctx: AppContext, storeId: string): Promise<bigint> {
  const key = requirementKey(storeId);
  let memo = ctx.cache.get<Promise<bigint>>(key);
  if (!memo) {
    // Memoised before the query starts (as catalog-version.ts does): an invalidation that lands
    // while it runs drops it, so a position read before a write is never kept after it.
    memo = currentWalLsn(ctx.db);
    ctx.cache.set(key, memo);
    memo.catch(() => void ctx.cache.invalidate(key).catch(() => undefined));
  }
  return memo;
}

/**
 * After a committed change storefront catalog reads can see (products, variants, stock,
 * collections, media links, reviews): its WAL position becomes the store's requirement here, and
 * every other process drops its own (and asks the primary on its next read). Nothing to do
 * without a replica. Call it before the storefront cache's invalidation.
 */
export async function noteCatalogWrite(ctx: AppContext, storeId: string): Promise<void> {
  // The setting, not ctx.replica: a process that never reads from the replica still tells the others.
  if (!ctx.config.replicaDatabaseUrl) return;
  const key = requirementKey(storeId);
  await ctx.cache.invalidate(key);
  let lsn: bigint;
  try {
    lsn = await currentWalLsn(ctx.db);
  } catch (error) {
    // Without the position the key stays dropped: the next read asks the primary itself.
    ctx.log.warn({ err: { message: (error as Error).message } }, 'catalog write position unknown; the next storefront read asks the primary');
    return;
  }
  // Two writes of one store at once: the later position wins, whichever call finishes first.
  const current = ctx.cache.get<Promise<bigint>>(key);
  const kept = current ? current.then((other) => (other > lsn ? other : lsn), () => lsn) : Promise.resolve(lsn);
  ctx.cache.set(key, kept);
}
