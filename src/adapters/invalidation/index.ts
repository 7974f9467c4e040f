import type { Logger } from 'pino';
import type { Db } from '../../db/knex.js';
import type { RedisTarget } from '../redis.js';
import { PostgresInvalidationBus } from './postgres.js';
import { RedisInvalidationBus } from './redis.js';

/**
 * Cache invalidation between processes (pub/sub on one channel). Delivery is best effort: after a
 * reconnect, when messages may have been lost, `onResubscribed` runs so the listener drops
 * everything it holds.
 */
export interface InvalidationBus {
  /** Starts listening in the background (never throws: a store away at boot is retried). */
  start(onMessage: (key: string) => void, onResubscribed: () => void): void;
  publish(keys: string[]): Promise<void>;
  close(): Promise<void>;
}

export function createInvalidationBus(
  store: { target: RedisTarget } | { db: Db; databaseUrl: string },
  channel: string,
  log: Logger
): InvalidationBus {
  return 'target' in store ? new RedisInvalidationBus(store.target, channel, log) : new PostgresInvalidationBus(store.db, store.databaseUrl, channel, log);
}
