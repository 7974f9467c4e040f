import { redisConnectionOf } from '../../src/adapters/index.js';
import type { AppContext } from '../../src/context.js';
import type { RedisClient, RedisTarget } from '../../src/adapters/redis.js';

/**
 * Which backends this run tests: with REDIS_URL set (CI's first run), Redis behind the queues and
 * shared state; with REDIS_CLUSTER_NODES set (test/system/clusters/redis-cluster.test.ts's child run), a Redis
 * Cluster; with neither, PostgreSQL (src/adapters/). Suites about Redis itself skip without it.
 */
export const REDIS_URL = process.env.REDIS_URL ?? '';
export const REDIS_CLUSTER_NODES = process.env.REDIS_CLUSTER_NODES ?? '';
export const redisCluster = REDIS_CLUSTER_NODES !== '';
export const redisConfigured = REDIS_URL !== '' || redisCluster;
/** This run's Redis, as src/redis.ts takes it. */
export const REDIS_TARGET: RedisTarget = { url: REDIS_URL, clusterNodes: REDIS_CLUSTER_NODES.split(',').filter(Boolean) };
/** An app's env for the Redis backends of this run, and for the PostgreSQL ones whatever the run has. */
export const REDIS_ENV = { REDIS_URL, REDIS_CLUSTER_NODES };
export const NO_REDIS_ENV = { REDIS_URL: '', REDIS_CLUSTER_NODES: '' };

/** For `t.test(name, { skip: needsRedis }, …)`: false when a Redis is configured, else the reason. */
export const needsRedis: false | string = redisConfigured ? false : 'REDIS_URL is unset: this run uses the PostgreSQL backends, and this test is about Redis itself';

/**
 * For tests that cut one Redis server's connection (a proxy in front of REDIS_URL, a disconnect):
 * on a cluster there is no single server to cut, and the cluster's own failover is another test.
 */
export const needsSingleRedis: false | string = redisCluster
  ? 'REDIS_CLUSTER_NODES is set: this test cuts a single Redis server (REDIS_URL), which a cluster run has not'
  : needsRedis;

/** The app's Redis connection (tests that cut it to simulate an outage). */
export function redisOf(ctx: AppContext): RedisClient {
  const redis = redisConnectionOf(ctx.backends);
  if (!redis) throw new Error('this app runs without Redis');
  return redis;
}
