import type { RedisClient } from '../redis.js';

const TTL_SEC = 7 * 24 * 3600;

/** A hash per store: HSETNX keeps the first version written. */
export class RedisStorefrontVersions {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string
  ) {}

  private key(storeId: string): string {
    return `${this.prefix}:sfhttp:${storeId}`;
  }

  async get(storeId: string): Promise<{ version: string; cacheControl: string } | null> {
    const [version, cacheControl] = await this.redis.hmget(this.key(storeId), 'version', 'cacheControl');
    return version && cacheControl ? { version, cacheControl } : null;
  }

  async init(storeId: string, version: string, cacheControl: string): Promise<{ version: string; cacheControl: string }> {
    const key = this.key(storeId);
    const [, [, stored]] = (await this.redis
      .multi()
      .hsetnx(key, 'version', version)
      .hget(key, 'version')
      .hset(key, 'cacheControl', cacheControl)
      .expire(key, TTL_SEC)
      .exec()) as [unknown, [unknown, string]];
    return { version: stored, cacheControl };
  }

  async drop(storeId: string): Promise<void> {
    await this.redis.del(this.key(storeId));
  }
}
