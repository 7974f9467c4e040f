import type { RedisClient } from '../redis.js';

/** A sorted set of claims scored by claim time; lapsed ones dropped before counting. */
export class RedisSlotStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string
  ) {}

  async take(key: string, member: string, limit: number, claimMs: number): Promise<boolean> {
    const name = `${this.prefix}:${key}`;
    const now = Date.now();
    const results = await this.redis.multi().zremrangebyscore(name, 0, now - claimMs).zadd(name, now, member).zcard(name).pexpire(name, claimMs * 2).exec();
    if (Number(results?.[2]?.[1] ?? 0) <= limit) return true;
    await this.redis.zrem(name, member);
    return false;
  }

  async release(key: string, member: string): Promise<void> {
    await this.redis.zrem(`${this.prefix}:${key}`, member);
  }
}
