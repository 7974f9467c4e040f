import type { WindowCounts } from '../adapters/rate-limits/index.js';

/**
 * The sliding-window counter every rate limit uses: counts are kept per fixed window (a minute from
 * :00, an hour from :00), and a bucket's rate is this window's count plus the part of the previous
 * window's count that a window ending now still covers (the previous count is taken as spread
 * evenly over its window). A fixed window alone let twice the limit through at a window's edge
 * (the limit at :59 and the limit again at :00); here a full previous window weighs on the next
 * one and lets go of it gradually. Two counters per bucket, whatever the limit.
 */

export type { WindowCounts };

/** The window a moment falls in (its index since the epoch) and how far into it, from 0 to 1. */
export function windowAt(nowMs: number, windowSec: number): { index: number; elapsed: number } {
  const windows = nowMs / 1000 / windowSec;
  const index = Math.floor(windows);
  return { index, elapsed: windows - index };
}

/** The bucket's count over the window that ends now. */
export function slidingCount(counts: WindowCounts, elapsed: number): number {
  return counts.current + counts.previous * (1 - elapsed);
}

/**
 * Whole seconds (at least 1) until one more hit would be within `limit`, if none come meanwhile:
 * later in this window, as the previous window's share fades; in the next, as this one's does; or
 * at the latest when the next window begins and this one's count has faded out.
 */
export function secondsUntilAllowed(counts: WindowCounts, elapsed: number, limit: number, windowSec: number): number {
  const room = limit - 1;
  const leftOfWindow = (1 - elapsed) * windowSec;
  let waitSec: number;
  if (counts.current <= room && counts.previous > 0) {
    // previous * (1 - e) <= room - current, at the fraction e of this window
    const at = 1 - (room - counts.current) / counts.previous;
    waitSec = Math.max(0, at - elapsed) * windowSec;
  } else if (counts.current <= room) {
    waitSec = 0;
  } else {
    // this window's count becomes the previous one: current * (1 - e) <= room in the next window
    const at = room <= 0 ? 1 : Math.max(0, 1 - room / counts.current);
    waitSec = leftOfWindow + at * windowSec;
  }
  // The epsilon keeps float noise (10.000000001 s) from adding a whole second.
  return Math.max(1, Math.ceil(waitSec - 1e-9));
}
