import { createHmac } from 'node:crypto';

/**
 * `Shopwright-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`; while a rotated
 * secret's grace period lasts, one `v1=` per secret (new first), so receivers may verify with either.
 */
export function signatureHeader(secrets: string[], body: string, now = Date.now()): string {
  const t = Math.floor(now / 1000);
  return [`t=${t}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`)].join(',');
}
