import type { RedisClient } from '../redis.js';

/**
 * INCR + EXPIRE in one MULTI (one key), keys under the deployment's prefix. Reads are one GET per
 * key, not MGET: on a Redis Cluster the buckets of one request live in different slots.
 */
export class RedisRateLimitStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string
  ) {}

  async increment(key: string, ttlSec: number): Promise<number> {
    const name = `${this.prefix}:rl:${key}`;
    const results = await this.redis.multi().incr(name).expire(name, ttlSec).exec();
    return Number(results?.[0]?.[1] ?? 0);
  }

  async read(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const counts = await Promise.all(keys.map((key) => this.redis.get(`${this.prefix}:rl:${key}`)));
    return counts.map((count) => Number(count ?? 0));
  }
}
