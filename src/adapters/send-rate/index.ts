import type { RedisClient } from '../redis.js';
import type { Db } from '../../db/knex.js';
import { PostgresSendRateStore } from './postgres.js';
import { RedisSendRateStore } from './redis.js';

/**
 * A shared send schedule (GCRA): the store keeps, per key, the next free slot in microseconds of
 * its own clock. `reserve` takes `count` consecutive slots `intervalUs` apart and answers the first
 * one's time (µs since the epoch), so every process sharing the key paces itself without polling.
 */
export interface SendRateStore {
  reserve(key: string, count: number, intervalUs: number): Promise<number>;
}

export function createSendRateStore(store: { redis: RedisClient; prefix: string } | { db: Db }): SendRateStore {
  return 'redis' in store ? new RedisSendRateStore(store.redis, store.prefix) : new PostgresSendRateStore(store.db);
}
