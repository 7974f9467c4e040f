import type { AppContext } from '../../context.js';

/**
 * A store's campaign send rate, shared by every worker process through Redis. Each call reserves
 * `count` consecutive send slots `1/rate` seconds apart (GCRA: the key holds the next free slot in
 * microseconds of Redis time) and answers how long until the first one, so callers pace themselves
 * and never exceed the rate together, without polling or rejected attempts.
 */
const RESERVE_SLOTS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
if nextFree < now then nextFree = now end
local after = nextFree + count * interval
redis.call('SET', KEYS[1], string.format('%.0f', after), 'PX', math.floor((after - now) / 1000) + 60000)
return string.format('%.0f', nextFree - now)
`;

/** The rate a store's campaigns send at: its own setting, else the platform default, never above the cap. */
export async function storeSendRate(ctx: AppContext, storeId: string): Promise<number> {
  const row = await ctx.db('stores').where({ id: storeId }).first('marketingSendRate');
  const wanted = row?.marketingSendRate ?? ctx.config.marketing.defaultSendRate;
  return Math.max(1, Math.min(wanted, ctx.config.marketing.sendRateCap));
}

/** Reserves `count` slots; returns, for each, the milliseconds to wait from now before sending. */
export async function reserveSendSlots(ctx: AppContext, storeId: string, count: number, ratePerSecond: number): Promise<number[]> {
  const intervalUs = 1_000_000 / ratePerSecond;
  const key = `${ctx.config.redisPrefix}:marketing:send-rate:${storeId}`;
  const firstUs = Number(await ctx.redis.eval(RESERVE_SLOTS, 1, key, String(count), String(intervalUs)));
  return Array.from({ length: count }, (_v, i) => (firstUs + i * intervalUs) / 1000);
}
