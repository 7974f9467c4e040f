import t from 'tap';
import type { AppError } from '../../src/errors.js';
import { LocalRateLimiter } from '../../src/platform/rate-limit.js';
import { secondsUntilAllowed, slidingCount, windowAt } from '../../src/platform/sliding-window.js';

/** Runs `body` with Date.now() answering `clock.at` (ms), restored after. */
async function onClock<T>(clock: { at: number }, body: () => T | Promise<T>): Promise<T> {
  const real = Date.now;
  Date.now = () => clock.at;
  try {
    return await body();
  } finally {
    Date.now = real;
  }
}

/** Consumes one hit; answers 'ok' or the Retry-After a refusal carried. */
function hit(limiter: LocalRateLimiter, key: string): 'ok' | number {
  try {
    limiter.consume(key);
    return 'ok';
  } catch (error) {
    t.equal((error as AppError).status, 429);
    return Number((error as AppError).headers['Retry-After']);
  }
}

/** 'ok', or the status a refusal carried. */
function checked(limiter: LocalRateLimiter, key: string): 'ok' | number {
  try {
    limiter.check(key);
    return 'ok';
  } catch (error) {
    return (error as AppError).status;
  }
}

const MINUTE = 60_000;
const minuteStart = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE);

t.test('windowAt: the window index and how far into it', async (t) => {
  t.same(windowAt(minuteStart, 60), { index: minuteStart / MINUTE, elapsed: 0 });
  t.same(windowAt(minuteStart + 45_000, 60), { index: minuteStart / MINUTE, elapsed: 0.75 });
  t.equal(windowAt(minuteStart + 3_600_000 + 1_800_000, 3600).elapsed, 0.5, 'an hour window from :00');
});

t.test('the count over the window ending now: this window, plus the share of the last one still covered', async (t) => {
  t.equal(slidingCount({ current: 4, previous: 0 }, 0.3), 4);
  t.equal(slidingCount({ current: 0, previous: 10 }, 0), 10, 'at the edge, the whole last window still weighs');
  t.equal(slidingCount({ current: 2, previous: 10 }, 0.75), 4.5);
  t.equal(slidingCount({ current: 2, previous: 10 }, 1), 2);
});

t.test('secondsUntilAllowed: when one more hit fits', async (t) => {
  t.equal(secondsUntilAllowed({ current: 0, previous: 0 }, 0.5, 5, 60), 1, 'at least a second');
  // limit 3, last window full, 1 in this one, 30 s in: 3 * (1 - e) + 1 + 1 <= 3 at e = 2/3, 40 s in.
  t.equal(secondsUntilAllowed({ current: 1, previous: 3 }, 0.5, 3, 60), 10);
  // this window full: it must fade in the next: 3 * (1 - e) + 1 <= 3 at e = 1/3, 20 s into the next.
  t.equal(secondsUntilAllowed({ current: 3, previous: 0 }, 0.5, 3, 60), 50);
  t.equal(secondsUntilAllowed({ current: 1, previous: 0 }, 0.25, 1, 60), 105, 'a limit of one: the next window must pass');
});

t.test('the local limiter lets no burst through at a window edge and holds a client to its limit', async (t) => {
  const clock = { at: minuteStart + 59_500 };
  const limiter = new LocalRateLimiter(5);
  await onClock(clock, async () => {
    t.same([1, 2, 3, 4, 5].map(() => hit(limiter, 'a')), ['ok', 'ok', 'ok', 'ok', 'ok'], 'five in the last half second of a minute');
    clock.at = minuteStart + MINUTE + 500;
    const edge = [1, 2, 3, 4, 5].map(() => hit(limiter, 'a'));
    t.same(edge.filter((answer) => answer === 'ok'), [], 'none more half a second later (a fixed window let five more through)');
    t.ok(edge.every((answer) => typeof answer === 'number' && answer >= 12 && answer <= 13), `refusals say when: ${edge.join(', ')}`);
    t.equal(hit(limiter, 'b'), 'ok', 'another key is not limited');

    clock.at = minuteStart + MINUTE + 12_500;
    t.equal(hit(limiter, 'a'), 'ok', 'after the Retry-After, one more fits: refused hits were not counted');
    t.equal(typeof hit(limiter, 'a'), 'number', 'and the next does not yet');

    // A client sending twice its limit for two minutes is held to it, not shut out.
    const admitted = [0, 0];
    for (const minute of [0, 1]) {
      for (let ms = 3_000; ms < MINUTE; ms += 6_000) {
        clock.at = minuteStart + (3 + minute) * MINUTE + ms;
        for (const _ of [1, 2]) if (hit(limiter, 'steady') === 'ok') admitted[minute]! += 1;
      }
    }
    t.same(admitted, [5, 4], 'forty tries over two minutes: five admitted in the first, four in the second');
  });
});

t.test('check counts nothing and refuses once the limit is reached; the weight fades from the next window on', async (t) => {
  const clock = { at: minuteStart + 30_000 };
  const limiter = new LocalRateLimiter(2);
  await onClock(clock, async () => {
    t.equal(checked(limiter, 'k'), 'ok');
    limiter.consume('k');
    t.equal(checked(limiter, 'k'), 'ok', 'one of two');
    limiter.consume('k');
    t.equal(checked(limiter, 'k'), 429, 'two of two');
    t.equal(checked(limiter, 'k'), 429, 'checking counted nothing, and still refuses');
    clock.at = minuteStart + MINUTE;
    t.equal(checked(limiter, 'k'), 429, 'as the next window opens, the last one weighs in full');
    clock.at = minuteStart + MINUTE + 1_000;
    t.equal(checked(limiter, 'k'), 'ok', 'a second on, it weighs 2 x 59/60');
  });
});
