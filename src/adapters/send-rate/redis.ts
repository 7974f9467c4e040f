import type { RedisClient } from '../redis.js';

/** One Lua script: atomic against every other worker, on Redis's clock. */
const RESERVE_SLOTS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
if nextFree < now then nextFree = now end
local after = nextFree + count * interval
redis.call('SET', KEYS[1], string.format('%.0f', after), 'PX', math.floor((after - now) / 1000) + 60000)
return string.format('%.0f', nextFree)
`;

export class RedisSendRateStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string
  ) {}

  async reserve(key: string, count: number, intervalUs: number): Promise<number> {
    return Number(await this.redis.eval(RESERVE_SLOTS, 1, `${this.prefix}:${key}`, String(count), String(intervalUs)));
  }
}
