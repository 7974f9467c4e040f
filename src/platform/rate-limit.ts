import type { AppContext } from '../context.js';
import { rateLimited } from '../errors.js';
import { secondsUntilAllowed, slidingCount, windowAt, type WindowCounts } from './sliding-window.js';

/** Per-process limiters used while the shared store is away, one per context and window length. */
const fallbacks = new WeakMap<AppContext, Map<number, LocalRateLimiter>>();

function fallbackLimiter(ctx: AppContext, windowSec: number): LocalRateLimiter {
  let byWindow = fallbacks.get(ctx);
  if (!byWindow) fallbacks.set(ctx, (byWindow = new Map()));
  let limiter = byWindow.get(windowSec);
  if (!limiter) byWindow.set(windowSec, (limiter = new LocalRateLimiter(Number.MAX_SAFE_INTEGER, windowSec)));
  return limiter;
}

/** A window's count must outlive the next window, which reads it as its previous one. */
const keptFor = (windowSec: number) => 2 * windowSec + 1;

/**
 * Sliding-window counter (platform/sliding-window.ts) in the shared store (Redis or PostgreSQL,
 * ctx.backends), the same for every web process. A refused hit is taken back: a client sending
 * faster than the limit is held to the limit, not shut out for as long as it keeps trying (a
 * storefront's server behind one address). While the store is away it falls back to a
 * per-process counter with the same limit (neither failing open, which would hand a password
 * guesser an outage, nor refusing every login, which would be the outage).
 */
export async function consumeRateLimit(ctx: AppContext, bucket: string, limit: number, windowSec = 60): Promise<void> {
  const { index, elapsed } = windowAt(Date.now(), windowSec);
  let counts: WindowCounts;
  try {
    counts = await ctx.backends.rateLimits.hit(bucket, index, keptFor(windowSec));
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message } }, 'rate limiter unavailable, counting in this process');
    fallbackLimiter(ctx, windowSec).consume(bucket, limit);
    return;
  }
  // The count includes this hit: it may bring the rate up to the limit, not past it.
  if (slidingCount(counts, elapsed) <= limit) return;
  const refused = { ...counts, current: counts.current - 1 };
  await ctx.backends.rateLimits.unhit(bucket, index).catch((error: Error) => ctx.log.warn({ err: { message: error.message } }, 'rate limiter could not take back a refused hit'));
  throw rateLimited(secondsUntilAllowed(refused, elapsed, limit, windowSec));
}

/**
 * Throws 429 when any bucket has already reached its limit, without counting this request: for
 * limits on failures only (credentials sent with every request, where counting successes would
 * lock out the one who knows them), checked before the attempt; the failures are counted with
 * consumeRateLimit. While the shared store is away it reads the per-process counters.
 */
export async function assertUnderRateLimits(ctx: AppContext, buckets: Array<{ bucket: string; limit: number }>, windowSec = 60): Promise<void> {
  const { index, elapsed } = windowAt(Date.now(), windowSec);
  let counts: WindowCounts[];
  try {
    counts = await ctx.backends.rateLimits.read(
      buckets.map(({ bucket }) => bucket),
      index
    );
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message } }, 'rate limiter unavailable, counting in this process');
    for (const { bucket, limit } of buckets) fallbackLimiter(ctx, windowSec).check(bucket, limit);
    return;
  }
  const full = buckets.map(({ limit }, i) => ({ limit, counts: counts[i]! })).filter(({ limit, counts }) => slidingCount(counts, elapsed) >= limit);
  if (full.length > 0) throw rateLimited(Math.max(...full.map(({ limit, counts }) => secondsUntilAllowed(counts, elapsed, limit, windowSec))));
}

/** In-process sliding-window limiter for hot paths (storefront reads) where a shared-store round trip per request costs too much. */
export class LocalRateLimiter {
  private readonly counts = new Map<string, { window: number } & WindowCounts>();

  constructor(
    private readonly limit: number,
    private readonly windowSec = 60,
    /** Bounds memory: past this many keys, counters older than the previous window go first, then everything. */
    private readonly maxKeys = 50_000
  ) {}

  consume(key: string, limit = this.limit): void {
    const { index, elapsed } = windowAt(Date.now(), this.windowSec);
    let entry = this.counts.get(key);
    if (!entry) {
      if (this.counts.size >= this.maxKeys) this.evict(index);
      this.counts.set(key, (entry = { window: index, current: 0, previous: 0 }));
    }
    this.roll(entry, index);
    if (slidingCount(entry, elapsed) + 1 > limit) throw rateLimited(secondsUntilAllowed(entry, elapsed, limit, this.windowSec));
    entry.current += 1;
  }

  /** Throws when the key has already reached the limit; counts nothing. */
  check(key: string, limit = this.limit): void {
    const { index, elapsed } = windowAt(Date.now(), this.windowSec);
    const entry = this.counts.get(key);
    if (!entry) return;
    this.roll(entry, index);
    if (slidingCount(entry, elapsed) >= limit) throw rateLimited(secondsUntilAllowed(entry, elapsed, limit, this.windowSec));
  }

  /** Brings a key's counters to window `index`: the current count becomes the previous one, or both lapse. */
  private roll(entry: { window: number } & WindowCounts, index: number): void {
    if (entry.window === index) return;
    entry.previous = entry.window === index - 1 ? entry.current : 0;
    entry.current = 0;
    entry.window = index;
  }

  private evict(index: number): void {
    for (const [key, entry] of this.counts) if (entry.window < index - 1) this.counts.delete(key);
    if (this.counts.size >= this.maxKeys) this.counts.clear();
  }
}
