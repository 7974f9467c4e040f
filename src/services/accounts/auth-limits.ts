import type { AppContext } from '../../context.js';
import { assertUnderRateLimits, consumeRateLimit } from '../../platform/rate-limit.js';

/**
 * The brute-force limits of everything that checks a password (RATE_LIMIT_AUTH_*): per client IP,
 * per identity (email, user name) and IP pair, so someone guessing from one address cannot lock the
 * owner out from another, and a higher ceiling per identity across every address.
 */
export function authAttemptBuckets(ctx: AppContext, action: string, ip: string, identity?: string): Array<{ bucket: string; limit: number }> {
  const limits = ctx.config.rateLimits;
  const buckets = [{ bucket: `${action}:ip:${ip}`, limit: limits.authPerIpPerMinute }];
  if (identity === undefined) return buckets;
  buckets.push({ bucket: `${action}:email-ip:${identity}:${ip}`, limit: limits.authPerEmailPerMinute });
  buckets.push({ bucket: `${action}:email:${identity}`, limit: limits.authPerEmailCeilingPerMinute });
  return buckets;
}

/**
 * For credentials sent with every request (Basic auth), where counting every request would lock
 * out the operator who knows them: only failures count (countCredentialFailure), and once a limit
 * is reached every request of that client, or for that user name, answers 429 until the window
 * turns, even with the right credentials: the lock-out login has.
 */
export async function assertCredentialFailuresUnderLimit(ctx: AppContext, action: string, ip: string, identity?: string): Promise<void> {
  await assertUnderRateLimits(ctx, authAttemptBuckets(ctx, action, ip, identity));
}

export async function countCredentialFailure(ctx: AppContext, action: string, ip: string, identity?: string): Promise<void> {
  for (const { bucket, limit } of authAttemptBuckets(ctx, action, ip, identity)) await consumeRateLimit(ctx, bucket, limit);
}
