import type { Redis } from 'ioredis';

/** INCR + EXPIRE in one MULTI, keys under the deployment's prefix. */
export class RedisRateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string
  ) {}

  async increment(key: string, ttlSec: number): Promise<number> {
    const name = `${this.prefix}:rl:${key}`;
    const results = await this.redis.multi().incr(name).expire(name, ttlSec).exec();
    return Number(results?.[0]?.[1] ?? 0);
  }

  async read(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const counts = await this.redis.mget(keys.map((key) => `${this.prefix}:rl:${key}`));
    return counts.map((count) => Number(count ?? 0));
  }
}
