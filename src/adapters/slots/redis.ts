import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis.js';

/**
 * One script per claim: lapsed claims dropped, the set counted without the member's own claim,
 * the member added (or its claim renewed) only under the limit. One command, where a MULTI of
 * four (and a ZREM when full) cost the webhook worker about an eighth of its CPU per delivery
 * (two claims each); a holder renewing its claim always keeps it, as in the PostgreSQL store.
 * Scores are the callers' clocks, as before, so claims of older processes still compare.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, tonumber(ARGV[1]) - tonumber(ARGV[2]))
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1
`;
const TAKE_SHA = createHash('sha1').update(TAKE).digest('hex');

/** A sorted set of claims scored by claim time; lapsed ones dropped before counting. */
export class RedisSlotStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string
  ) {}

  async take(key: string, member: string, limit: number, claimMs: number): Promise<boolean> {
    const args = [`${this.prefix}:${key}`, String(Date.now()), String(claimMs), member, String(limit)] as const;
    let taken: unknown;
    try {
      taken = await this.redis.evalsha(TAKE_SHA, 1, ...args);
    } catch (error) {
      // A server that has not seen the script yet (or was restarted, or a new cluster master).
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
      taken = await this.redis.eval(TAKE, 1, ...args);
    }
    return Number(taken) === 1;
  }

  async release(key: string, member: string): Promise<void> {
    await this.redis.zrem(`${this.prefix}:${key}`, member);
  }

  /** One ZREM per key, sent together (the keys may live on different Cluster nodes). */
  async releaseAll(keys: string[], member: string): Promise<void> {
    await Promise.all(keys.map((key) => this.release(key, member)));
  }
}
