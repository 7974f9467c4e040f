import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../errors.js';
import type { Sql } from '../db/transaction.js';

export const SIGNATURE_TOLERANCE_SEC = 5 * 60;

/** `sha256=<hex HMAC-SHA256 of "timestamp.body">`, the scheme of our internal receivers. */
export function signRequest(secret: string, timestamp: string | number, body: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `sha256=${mac}`;
}

export interface SignatureHeaders {
  timestamp: string | undefined;
  signature: string | undefined;
}

/** Seconds since the epoch; milliseconds and ISO 8601 are accepted too. */
function timestampSeconds(value: string): number | null {
  if (/^\d{9,14}$/.test(value)) {
    const n = Number(value);
    return n > 1e12 ? Math.floor(n / 1000) : n;
  }
  const parsed = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(parsed) ? null : Math.floor(parsed / 1000);
}

/**
 * Checks the timestamp (5 minutes either way) and the HMAC against each candidate secret, in
 * constant time. Returns the index of the secret that matched; throws 400 otherwise.
 */
export function verifySignature(headers: SignatureHeaders, body: Buffer, secrets: string[], nowMs = Date.now()): number {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) throw badRequest('Missing x-webhook-timestamp or x-webhook-signature');
  const seconds = timestampSeconds(timestamp);
  if (seconds === null) throw badRequest('x-webhook-timestamp must be a Unix time');
  if (Math.abs(nowMs / 1000 - seconds) > SIGNATURE_TOLERANCE_SEC) throw badRequest('The webhook timestamp is outside the 5-minute tolerance');
  const given = Buffer.from(signature.trim());
  for (let i = 0; i < secrets.length; i++) {
    const expected = Buffer.from(signRequest(secrets[i]!, timestamp, body));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return i;
  }
  throw badRequest('The webhook signature does not match');
}

/**
 * Remembers an accepted signature so the same delivery cannot be replayed while its timestamp is
 * still fresh. Returns false for a replay. Receipts older than twice the tolerance are pruned.
 */
export async function recordReceipt(db: Sql, source: string, signature: string): Promise<boolean> {
  const inserted = await db('webhookReceipts').insert({ source, signature: signature.trim() }).onConflict(['source', 'signature']).ignore().returning('signature');
  if (Math.random() < 0.01) {
    await db('webhookReceipts').where('receivedAt', '<', db.raw(`now() - interval '${2 * SIGNATURE_TOLERANCE_SEC} seconds'`)).delete();
  }
  return inserted.length > 0;
}

export function signatureHeaders(headers: Record<string, string | string[] | undefined>): SignatureHeaders {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  return { timestamp: first(headers['x-webhook-timestamp']), signature: first(headers['x-webhook-signature']) };
}
