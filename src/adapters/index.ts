import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import { createFailFastRedis, redisTargetConfigured, waitForReady, type RedisClient, type RedisTarget } from './redis.js';
import { createInvalidationBus, type InvalidationBus } from './invalidation/index.js';
import { createQueueBackend, type QueueBackend } from './queue/index.js';
import { createRateLimitStore, type RateLimitStore } from './rate-limits/index.js';
import { createSendRateStore, type SendRateStore } from './send-rate/index.js';
import { createSlotStore, type SlotStore } from './slots/index.js';
import { createStorefrontVersionStore, type StorefrontVersionStore } from './storefront-versions/index.js';

export type BackendKind = 'redis' | 'postgres';

/**
 * Every outside-world port besides the application's tables, chosen once per process here: with
 * REDIS_URL or REDIS_CLUSTER_NODES set, Redis (one server or a cluster) behind all of them; without
 * either, PostgreSQL (the same database) behind all of them. Services use the ports and never learn
 * which one runs.
 */
export interface Backends {
  /** Which datastore serves the queues and the shared state (health reports it). */
  readonly kind: BackendKind;
  readonly queue: QueueBackend;
  readonly rateLimits: RateLimitStore;
  readonly sendRate: SendRateStore;
  readonly storefrontVersions: StorefrontVersionStore;
  readonly invalidation: InvalidationBus;
  readonly slots: SlotStore;
  /** Rejects when that datastore does not answer. */
  ping(): Promise<void>;
  /** Waits (briefly) for the connection; a store away at boot is logged, not fatal. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The Redis connection behind a Redis-backed process: only for tests about Redis itself. */
const redisConnections = new WeakMap<Backends, RedisClient>();
export const redisConnectionOf = (backends: Backends): RedisClient | undefined => redisConnections.get(backends);

export function createBackends(config: Config, db: Db, log: Logger): Backends {
  const channel = `${config.redisPrefix}:cache-invalidation`;
  const target: RedisTarget = { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
  if (!redisTargetConfigured(target)) {
    const store = { db };
    const queue = createQueueBackend({ databaseUrl: config.databaseUrl });
    return {
      kind: 'postgres',
      queue,
      rateLimits: createRateLimitStore(store),
      sendRate: createSendRateStore(store),
      storefrontVersions: createStorefrontVersionStore(store),
      invalidation: createInvalidationBus({ db, databaseUrl: config.databaseUrl }, channel, log),
      slots: createSlotStore(store),
      ping: () => queue.ping(),
      open: async () => undefined,
      close: () => queue.close()
    };
  }
  const redis = createFailFastRedis(target);
  redis.on('error', (error) => log.warn({ err: { message: error.message } }, 'redis connection error'));
  const store = { redis, prefix: config.redisPrefix };
  const backends: Backends = {
    kind: 'redis',
    queue: createQueueBackend({ redis, target, prefix: config.redisPrefix }),
    rateLimits: createRateLimitStore(store),
    sendRate: createSendRateStore(store),
    storefrontVersions: createStorefrontVersionStore(store),
    invalidation: createInvalidationBus({ target }, channel, log),
    slots: createSlotStore(store),
    ping: async () => {
      await redis.ping();
    },
    open: () => waitForReady(redis).catch((error: Error) => log.warn({ err: { message: error.message } }, 'redis not ready at startup')),
    close: async () => {
      await backends.queue.close();
      redis.disconnect();
    }
  };
  redisConnections.set(backends, redis);
  return backends;
}
