/**
 * The retry schedule, scaled from WEBHOOK_RETRY_BASE_MS (10 s by default): attempt n waits
 * base·2^(n-1) (at most base·2^12, about 11 h), times a jitter in [0.75, 1.25) so endpoints that
 * failed together do not retry together, for as long as the first attempt is less than
 * base·8640 old (24 h). An endpoint failing for base·25920 (3 days) is disabled.
 */
export const retryWindowMs = (baseMs: number) => baseMs * 8_640;
export const disableAfterMs = (baseMs: number) => baseMs * 25_920;

export function nextRetryDelayMs(baseMs: number, attempts: number, random = Math.random): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 12);
  return Math.round(baseMs * 2 ** exponent * (0.75 + random() / 2));
}
