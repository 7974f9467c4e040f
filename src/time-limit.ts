/**
 * Rejects with `${what} did not finish within ${ms} ms` when `work` has not settled in time (the
 * work itself goes on; its later outcome is ignored). The timer does not hold the process open and
 * is cleared once the race is decided. Used by every layer, so it imports none.
 */
export function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
