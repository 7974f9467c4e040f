/**
 * The rate limiters count per window aligned to the clock (a minute starts at :00) and read the
 * window before at a weight that fades through the minute (platform/sliding-window.ts). A test
 * that counts requests to an exact limit must not straddle two windows, or its earlier requests
 * weigh less than one each: when less than `needSec` is left of this window, wait for the next one.
 */
export async function freshMinute(needSec = 10): Promise<void> {
  const intoMinute = (Date.now() / 1000) % 60;
  if (intoMinute > 60 - needSec) await new Promise((resolve) => setTimeout(resolve, (60 - intoMinute) * 1000 + 50));
}

/**
 * Moves this process's clock (Date.now, which the limiters read) to a chosen moment; it keeps
 * ticking from there, and the real clock comes back at the test's end. For stepping across a
 * window's edge without waiting for one. Only the limiters' arithmetic should see it: send only
 * calls that read no clock otherwise (the storefront's, not a signed-in member's).
 */
export function shiftedClock(t: { teardown(fn: () => void): void }): { moveTo(ms: number): void; minuteStart(): number } {
  const real = Date.now.bind(Date);
  let offset = 0;
  Date.now = () => real() + offset;
  t.teardown(() => {
    Date.now = real;
  });
  return {
    moveTo: (ms) => {
      offset = ms - real();
    },
    minuteStart: () => {
      const now = real();
      return now - (now % 60_000);
    }
  };
}
