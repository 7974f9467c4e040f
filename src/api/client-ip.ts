import { isIP } from 'node:net';
import type { Request } from '@hapi/hapi';

/**
 * The caller's address, for rate limits and consent records. With `TRUST_PROXY=n` (n proxies in front
 * of us, e.g. 1 for the Heroku router) the address is the n-th entry from the right of
 * `X-Forwarded-For` + the socket address: each trusted proxy appended the address it was called from,
 * and anything further left was written by the client and may be forged. With 0 (the default) the
 * header is ignored.
 */
export function clientIp(request: Request): string {
  const socketAddress = request.info.remoteAddress;
  const hops = request.server.app.ctx.config.trustProxy;
  if (hops <= 0) return socketAddress;
  const header = request.headers['x-forwarded-for'] as string | string[] | undefined;
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chain = [...forwarded, socketAddress];
  const candidate = chain[Math.max(chain.length - 1 - hops, 0)]!;
  return isIP(candidate) ? candidate : socketAddress;
}
