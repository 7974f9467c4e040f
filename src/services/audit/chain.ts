import { createHash } from 'node:crypto';

/** The first entry of a store links to this (64 zeros). */
export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted at every level: the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

/** The fields an entry's hash covers: everything but the hashes themselves. */
export interface ChainedFields {
  storeId: string;
  seq: number;
  id: string;
  createdAt: string;
  actorType: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  actorEmail: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  changes: unknown;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** sha256(prev_hash || canonical JSON of the entry), hex. */
export function entryHash(prevHash: string, fields: ChainedFields): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(fields)).digest('hex');
}
