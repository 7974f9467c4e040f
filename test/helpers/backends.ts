import type { Redis } from 'ioredis';
import { redisConnectionOf } from '../../src/adapters/index.js';
import type { AppContext } from '../../src/context.js';

/**
 * Which backends this run tests: with REDIS_URL set (CI's first run), Redis behind the queues and
 * shared state; unset, PostgreSQL (src/adapters/). Suites about Redis itself skip without it.
 */
export const REDIS_URL = process.env.REDIS_URL ?? '';
export const redisConfigured = REDIS_URL !== '';

/** For `t.test(name, { skip: needsRedis }, …)`: false when a Redis is configured, else the reason. */
export const needsRedis: false | string = redisConfigured ? false : 'REDIS_URL is unset: this run uses the PostgreSQL backends, and this test is about Redis itself';

/** The app's Redis connection (tests that cut it to simulate an outage). */
export function redisOf(ctx: AppContext): Redis {
  const redis = redisConnectionOf(ctx.backends);
  if (!redis) throw new Error('this app runs without Redis');
  return redis;
}
