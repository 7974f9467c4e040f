import type { RedisClient } from '../redis.js';
import type { Db } from '../../db/knex.js';
import { PostgresSlotStore } from './postgres.js';
import { RedisSlotStore } from './redis.js';

/**
 * Bounded concurrency shared by every process (webhook deliveries in flight per endpoint, and per
 * destination host across all stores): a claim older than `claimMs` lapses by itself, so a dead
 * process's slot frees itself.
 */
export interface SlotStore {
  /** Claims a slot for `member` under `key`; false (nothing claimed) when `limit` are taken. */
  take(key: string, member: string, limit: number, claimMs: number): Promise<boolean>;
  release(key: string, member: string): Promise<void>;
  /** Releases `member`'s claims under each of `keys` (one statement on PostgreSQL). */
  releaseAll(keys: string[], member: string): Promise<void>;
}

export function createSlotStore(store: { redis: RedisClient; prefix: string } | { db: Db }): SlotStore {
  return 'redis' in store ? new RedisSlotStore(store.redis, store.prefix) : new PostgresSlotStore(store.db);
}
