import { createHmac } from 'node:crypto';
import { checksummedWebhookKey } from '../../platform/checksum-tokens.js';

/**
 * The older scheme, kept for receivers built on it:
 * `Shopwright-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`; while a rotated
 * secret's grace period lasts, one `v1=` per secret (new first), so receivers may verify with either.
 * The HMAC key is the secret string's bytes. The event id is not signed here: see standardWebhookHeaders.
 */
export function signatureHeader(secrets: string[], body: string, now = Date.now()): string {
  const t = Math.floor(now / 1000);
  return [`t=${t}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`)].join(',');
}

/**
 * The Standard Webhooks HMAC key of a secret: a `whsec_` secret issued since issue #36 (standard
 * base64, checksummed) is base64-decoded, as the spec's libraries do. A secret issued before it
 * (`whsec_` + base64url, no checksum) signs with its own bytes, the whole string: receivers verify
 * with `new Webhook(secret, { format: 'raw' })`, or rotate the secret to get a new-form one.
 */
export function standardWebhookKey(secret: string): Buffer {
  return checksummedWebhookKey(secret) ?? Buffer.from(secret, 'utf8');
}

/**
 * Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-id` (the event id, the
 * same on every attempt, so receivers deduplicate on a signed id), `webhook-timestamp` (unix
 * seconds) and `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, one
 * per secret, space-separated during a rotation.
 */
export function standardWebhookHeaders(secrets: string[], eventId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signatures = secrets.map((secret) => `v1,${createHmac('sha256', standardWebhookKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`);
  return { 'webhook-id': eventId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}
