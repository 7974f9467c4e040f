import type { RedisClient } from '../redis.js';
import type { Db } from '../../db/knex.js';
import { PostgresRateLimitStore } from './postgres.js';
import { RedisRateLimitStore } from './redis.js';
import type { WindowCounts } from './window-counts.js';

export type { WindowCounts } from './window-counts.js';

/**
 * Per-window counters shared by every process: the rate limits (auth, newsletter, API keys), read
 * as sliding windows (platform/sliding-window.ts). A bucket's count in window `window` (its index
 * since the epoch) is kept for `ttlSec`; its count in `window - 1` is read beside it.
 */
export interface RateLimitStore {
  /** Counts one more hit in the window and answers its count (this hit included) and the previous window's. */
  hit(bucket: string, window: number, ttlSec: number): Promise<WindowCounts>;
  /** Takes back one hit of the window (a refused one). */
  unhit(bucket: string, window: number): Promise<void>;
  /** The counts of several buckets in the window and the one before (0 for unknown ones), counting nothing. */
  read(buckets: string[], window: number): Promise<WindowCounts[]>;
}

export function createRateLimitStore(store: { redis: RedisClient; prefix: string } | { db: Db }): RateLimitStore {
  return 'redis' in store ? new RedisRateLimitStore(store.redis, store.prefix) : new PostgresRateLimitStore(store.db);
}
