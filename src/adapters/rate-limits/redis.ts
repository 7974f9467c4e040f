import type { RedisClient } from '../redis.js';
import type { WindowCounts } from './window-counts.js';

/**
 * One key per bucket and window under the deployment's prefix. The bucket is the key's hash tag,
 * so a bucket's windows share a Redis Cluster slot: a hit is INCR + EXPIRE + GET of the previous
 * window in one MULTI, a read one MGET per bucket (a request's buckets live in different slots).
 */
export class RedisRateLimitStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string
  ) {}

  private key(bucket: string, window: number): string {
    return `${this.prefix}:rl:{${bucket}}:${window}`;
  }

  async hit(bucket: string, window: number, ttlSec: number): Promise<WindowCounts> {
    const name = this.key(bucket, window);
    const results = await this.redis.multi().incr(name).expire(name, ttlSec).get(this.key(bucket, window - 1)).exec();
    return { current: Number(results?.[0]?.[1] ?? 0), previous: Number(results?.[2]?.[1] ?? 0) };
  }

  async unhit(bucket: string, window: number): Promise<void> {
    await this.redis.decr(this.key(bucket, window));
  }

  async read(buckets: string[], window: number): Promise<WindowCounts[]> {
    return Promise.all(
      buckets.map(async (bucket) => {
        const [current, previous] = await this.redis.mget(this.key(bucket, window), this.key(bucket, window - 1));
        return { current: Number(current ?? 0), previous: Number(previous ?? 0) };
      })
    );
  }
}
