import type { RedisClient } from '../redis.js';
import type { Db } from '../../db/knex.js';
import { PostgresStorefrontVersions } from './postgres.js';
import { RedisStorefrontVersions } from './redis.js';

export interface StorefrontHttpState {
  version: string;
  cacheControl: string;
}

/**
 * A store's storefront catalog version and Cache-Control header, shared by every web process and
 * kept a week after the last write. `init` keeps a version another process stored first (both
 * then answer with the same one) and stores the Cache-Control header given.
 */
export interface StorefrontVersionStore {
  get(storeId: string): Promise<StorefrontHttpState | null>;
  init(storeId: string, version: string, cacheControl: string): Promise<StorefrontHttpState>;
  drop(storeId: string): Promise<void>;
}

export function createStorefrontVersionStore(store: { redis: RedisClient; prefix: string } | { db: Db }): StorefrontVersionStore {
  return 'redis' in store ? new RedisStorefrontVersions(store.redis, store.prefix) : new PostgresStorefrontVersions(store.db);
}
