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

/** The fields every audit entry carries whatever its table (pending or sealed), as entries. */
type SharedFields = Pick<ChainedFields, 'id' | 'actorType' | 'actorUserId' | 'actorApiKeyId' | 'actorEmail' | 'action' | 'resourceType' | 'resourceId' | 'requestId' | 'ip' | 'userAgent'>;

/**
 * Those fields as one array each, the bindings the pending insert and the seal's insert both unnest
 * (one prepared statement for any number of entries).
 */
export function sharedFieldArrays(entries: SharedFields[]) {
  const column = <K extends keyof SharedFields>(key: K) => entries.map((entry) => entry[key]);
  return {
    ids: column('id'),
    actorTypes: column('actorType'),
    actorUserIds: column('actorUserId'),
    actorApiKeyIds: column('actorApiKeyId'),
    actorEmails: column('actorEmail'),
    actions: column('action'),
    resourceTypes: column('resourceType'),
    resourceIds: column('resourceId'),
    requestIds: column('requestId'),
    ips: column('ip'),
    userAgents: column('userAgent')
  };
}

/** sha256(prev_hash || canonical JSON of the entry), hex. */
export function entryHash(prevHash: string, fields: ChainedFields): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(fields)).digest('hex');
}
