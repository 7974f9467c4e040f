import type { RedisClient } from '../redis.js';
import type { Db } from '../../db/knex.js';
import { PostgresRateLimitStore } from './postgres.js';
import { RedisRateLimitStore } from './redis.js';

/**
 * Fixed-window counters shared by every process: the rate limits (auth, newsletter, API keys).
 * `key` names one bucket in one window; the store forgets it after `ttlSec`.
 */
export interface RateLimitStore {
  /** Counts one more hit and answers the window's count including it. */
  increment(key: string, ttlSec: number): Promise<number>;
  /** The counts of several keys (0 for unknown ones), counting nothing. */
  read(keys: string[]): Promise<number[]>;
}

export function createRateLimitStore(store: { redis: RedisClient; prefix: string } | { db: Db }): RateLimitStore {
  return 'redis' in store ? new RedisRateLimitStore(store.redis, store.prefix) : new PostgresRateLimitStore(store.db);
}
