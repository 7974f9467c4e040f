import type { AppContext } from '../../context.js';

/**
 * A store's campaign send rate, shared by every worker process through the backends' send-rate
 * store (Redis or PostgreSQL). Each call reserves `count` consecutive send slots `1/rate` seconds
 * apart (GCRA: the store holds the next free slot in microseconds of its own clock) and answers when
 * the first one is, so callers pace themselves and never exceed the rate together, without polling
 * or rejected attempts.
 */
/** The rate a store's campaigns send at: its own setting, else the platform default, never above the cap. */
export async function storeSendRate(ctx: AppContext, storeId: string): Promise<number> {
  const row = await ctx.db('stores').where({ id: storeId }).first('marketingSendRate');
  const wanted = row?.marketingSendRate ?? ctx.config.marketing.defaultSendRate;
  return Math.max(1, Math.min(wanted, ctx.config.marketing.sendRateCap));
}

/**
 * Reserves `count` slots; returns, for each, the wall-clock time (ms since the epoch, the store's clock)
 * at which it may send. Absolute times, so the round trip does not shift the schedule.
 */
export async function reserveSendSlots(ctx: AppContext, storeId: string, count: number, ratePerSecond: number): Promise<number[]> {
  const intervalUs = 1_000_000 / ratePerSecond;
  const firstUs = await ctx.backends.sendRate.reserve(`marketing:send-rate:${storeId}`, count, intervalUs);
  return Array.from({ length: count }, (_v, i) => (firstUs + i * intervalUs) / 1000);
}
