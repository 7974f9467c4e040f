import type { AppContext } from '../context.js';
import { rateLimited } from '../errors.js';

/** Per-process limiters used while the shared store is away, one per context and window length. */
const fallbacks = new WeakMap<AppContext, Map<number, LocalRateLimiter>>();

function fallbackLimiter(ctx: AppContext, windowSec: number): LocalRateLimiter {
  let byWindow = fallbacks.get(ctx);
  if (!byWindow) fallbacks.set(ctx, (byWindow = new Map()));
  let limiter = byWindow.get(windowSec);
  if (!limiter) byWindow.set(windowSec, (limiter = new LocalRateLimiter(Number.MAX_SAFE_INTEGER, windowSec)));
  return limiter;
}

/**
 * Fixed-window counter in the shared store (Redis or PostgreSQL, ctx.backends), the same for every
 * web process. While the store is away it falls back to
 * a per-process counter with the same limit (neither failing open, which would hand a password
 * guesser an outage, nor refusing every login, which would be the outage).
 */
export async function consumeRateLimit(ctx: AppContext, bucket: string, limit: number, windowSec = 60): Promise<void> {
  const window = Math.floor(Date.now() / 1000 / windowSec);
  let count: number;
  try {
    count = await ctx.backends.rateLimits.increment(`${bucket}:${window}`, windowSec + 1);
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message } }, 'rate limiter unavailable, counting in this process');
    fallbackLimiter(ctx, windowSec).consume(bucket, limit);
    return;
  }
  if (count > limit) {
    const retryAfter = windowSec - (Math.floor(Date.now() / 1000) % windowSec);
    throw rateLimited(Math.max(retryAfter, 1));
  }
}

/**
 * Throws 429 when any bucket has already reached its limit in this window, without counting this
 * request: for limits on failures only (credentials sent with every request, where counting
 * successes would lock out the one who knows them), checked before the attempt; the failures are
 * counted with consumeRateLimit. While the shared store is away it reads the per-process counters.
 */
export async function assertUnderRateLimits(ctx: AppContext, buckets: Array<{ bucket: string; limit: number }>, windowSec = 60): Promise<void> {
  const window = Math.floor(Date.now() / 1000 / windowSec);
  let counts: number[];
  try {
    counts = await ctx.backends.rateLimits.read(buckets.map(({ bucket }) => `${bucket}:${window}`));
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message } }, 'rate limiter unavailable, counting in this process');
    for (const { bucket, limit } of buckets) fallbackLimiter(ctx, windowSec).check(bucket, limit);
    return;
  }
  if (buckets.some(({ limit }, i) => (counts[i] ?? 0) >= limit)) {
    throw rateLimited(Math.max(windowSec - (Math.floor(Date.now() / 1000) % windowSec), 1));
  }
}

/** In-process fixed-window limiter for hot paths (storefront reads) where a shared-store round trip per request costs too much. */
export class LocalRateLimiter {
  private readonly counts = new Map<string, { window: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSec = 60,
    /** Bounds memory: past this many keys, counters of past windows go first, then everything. */
    private readonly maxKeys = 50_000
  ) {}

  consume(key: string, limit = this.limit): void {
    const window = Math.floor(Date.now() / 1000 / this.windowSec);
    const entry = this.counts.get(key);
    if (!entry || entry.window !== window) {
      if (this.counts.size >= this.maxKeys) this.evict(window);
      this.counts.set(key, { window, count: 1 });
      return;
    }
    entry.count += 1;
    if (entry.count > limit) {
      throw rateLimited(Math.max(this.windowSec - (Math.floor(Date.now() / 1000) % this.windowSec), 1));
    }
  }

  /** Throws when the key has already reached the limit in this window; counts nothing. */
  check(key: string, limit = this.limit): void {
    const window = Math.floor(Date.now() / 1000 / this.windowSec);
    const entry = this.counts.get(key);
    if (entry && entry.window === window && entry.count >= limit) {
      throw rateLimited(Math.max(this.windowSec - (Math.floor(Date.now() / 1000) % this.windowSec), 1));
    }
  }

  private evict(window: number): void {
    for (const [key, entry] of this.counts) if (entry.window !== window) this.counts.delete(key);
    if (this.counts.size >= this.maxKeys) this.counts.clear();
  }
}
