import { randomBytes, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Secrets that secret scanners can recognise and that a typo cannot reach the database with (issue
 * #36), as GitHub's tokens: a fixed prefix, a random part, a CRC32 checksum.
 *
 * - API keys: `swk_` + 30 base62 random + 6 base62 CRC32 of everything before it (40 characters).
 *   Keys issued earlier (`swk_` + 43 base64url) carry no checksum and keep working.
 * - Webhook signing secrets: Standard Webhooks' `whsec_<base64>` form, the base64 (standard
 *   alphabet) of 32 random bytes followed by their CRC32 (4 bytes, big-endian). The HMAC key is all
 *   36 decoded bytes, exactly what the standardwebhooks libraries derive from the secret.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 30;
const CHECKSUM_CHARS = 6; // 62^6 > 2^32

function base62(value: number, width: number): string {
  let out = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out.padStart(width, '0');
}

const checksumOf = (text: string) => base62(crc32(text), CHECKSUM_CHARS);

export function newChecksummedToken(prefix: string): string {
  let random = '';
  for (let i = 0; i < RANDOM_CHARS; i++) random += BASE62[randomInt(62)];
  return `${prefix}${random}${checksumOf(prefix + random)}`;
}

/** The new form with a checksum that adds up (false for a typo, and for the older unchecksummed keys). */
export function isChecksummedToken(token: string, prefix: string): boolean {
  if (token.length !== prefix.length + RANDOM_CHARS + CHECKSUM_CHARS || !token.startsWith(prefix)) return false;
  const body = token.slice(0, -CHECKSUM_CHARS);
  return /^[0-9A-Za-z]+$/.test(token.slice(prefix.length)) && checksumOf(body) === token.slice(-CHECKSUM_CHARS);
}

/** A token of the new form's length: it must carry a valid checksum (older tokens are longer). */
export const hasChecksummedLength = (token: string, prefix: string) => token.length === prefix.length + RANDOM_CHARS + CHECKSUM_CHARS;

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const WEBHOOK_KEY_BYTES = 32;

export function newWebhookSecret(): string {
  const key = randomBytes(WEBHOOK_KEY_BYTES);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(key));
  return `${WEBHOOK_SECRET_PREFIX}${Buffer.concat([key, sum]).toString('base64')}`;
}

/** The decoded bytes of a new-form webhook secret whose checksum adds up, else null (an older secret). */
export function checksummedWebhookKey(secret: string): Buffer | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const text = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== WEBHOOK_KEY_BYTES + 4) return null;
  return crc32(bytes.subarray(0, WEBHOOK_KEY_BYTES)) === bytes.readUInt32BE(WEBHOOK_KEY_BYTES) ? bytes : null;
}
