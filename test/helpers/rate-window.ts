/**
 * The rate limiters count in fixed windows aligned to the clock (a minute starts at :00). A test
 * that counts requests against a limit must not straddle two windows, or its later requests are
 * counted afresh: when less than `needSec` is left of this window, wait for the next one.
 */
export async function freshMinute(needSec = 10): Promise<void> {
  const intoMinute = (Date.now() / 1000) % 60;
  if (intoMinute > 60 - needSec) await new Promise((resolve) => setTimeout(resolve, (60 - intoMinute) * 1000 + 50));
}
