import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { decodeCursor, encodeCursor } from '../../platform/pagination.js';
import { entryHash, GENESIS_HASH, type ChainedFields } from './chain.js';
import { sealAuditLog } from './seal.js';

export interface AuditRow extends ChainedFields {
  prevHash: string;
  hash: string;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: Date;
  until?: Date;
}

const COLUMNS = ['storeId', 'seq', 'id', 'createdAt', 'actorType', 'actorUserId', 'actorApiKeyId', 'actorEmail', 'action', 'resourceType', 'resourceId', 'changes', 'requestId', 'ip', 'userAgent', 'prevHash', 'hash'];

/** A row as hashed: createdAt as its ISO string, seq a number. */
export function chainedFields(row: Record<string, unknown>): ChainedFields {
  return {
    storeId: row.storeId as string,
    seq: Number(row.seq),
    id: row.id as string,
    createdAt: new Date(row.createdAt as string).toISOString(),
    actorType: row.actorType as string,
    actorUserId: (row.actorUserId as string) ?? null,
    actorApiKeyId: (row.actorApiKeyId as string) ?? null,
    actorEmail: (row.actorEmail as string) ?? null,
    action: row.action as string,
    resourceType: row.resourceType as string,
    resourceId: (row.resourceId as string) ?? null,
    changes: row.changes ?? null,
    requestId: (row.requestId as string) ?? null,
    ip: (row.ip as string) ?? null,
    userAgent: (row.userAgent as string) ?? null
  };
}

export const toAuditDto = (row: Record<string, unknown>) => {
  const fields = chainedFields(row);
  return {
    id: fields.id,
    seq: fields.seq,
    createdAt: fields.createdAt,
    actor: { type: fields.actorType, userId: fields.actorUserId, apiKeyId: fields.actorApiKeyId, email: fields.actorEmail ?? ((row.userEmail as string) ?? null) },
    action: fields.action,
    resource: { type: fields.resourceType, id: fields.resourceId },
    changes: fields.changes,
    requestId: fields.requestId,
    ip: fields.ip,
    userAgent: fields.userAgent,
    hash: row.hash as string
  };
};

/** Filtered entries, newest first (by seq, the chain's order). */
export function auditQuery(db: Sql, storeId: string, filter: AuditFilter) {
  const query = db('auditLog as a').leftJoin('users as u', 'u.id', 'a.actorUserId').where('a.storeId', storeId).select(COLUMNS.map((column) => `a.${column}`)).select('u.email as userEmail');
  if (filter.actor) query.where((q) => q.where('a.actorUserId', filter.actor!).orWhere('a.actorApiKeyId', filter.actor!));
  if (filter.action) query.where('a.action', filter.action);
  if (filter.resourceType) query.where('a.resourceType', filter.resourceType);
  if (filter.resourceId) query.where('a.resourceId', filter.resourceId);
  if (filter.since) query.where('a.createdAt', '>=', filter.since);
  if (filter.until) query.where('a.createdAt', '<', filter.until);
  return query.orderBy('a.seq', 'desc');
}

export async function listAuditLog(ctx: AppContext, storeId: string, filter: AuditFilter, page: { limit: number; cursor?: string | undefined }) {
  // Every committed entry is listed: the ones still pending are sealed first.
  if (!page.cursor) await sealAuditLog(ctx, storeId);
  const query = auditQuery(ctx.db, storeId, filter).limit(page.limit + 1);
  if (page.cursor) query.where('a.seq', '<', decodeCursor(page.cursor, ['number'])[0] as number);
  const rows: Array<Record<string, unknown>> = await query;
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { entries: items.map(toAuditDto), nextCursor: rows.length > page.limit && last ? encodeCursor([Number(last.seq)]) : null };
}

const VERIFY_BATCH = 1000;

/**
 * Walks the store's chain from its oldest kept entry (whose prev_hash is trusted as the anchor: the
 * retention purge removed what it linked to) and reports the first entry whose hash does not match
 * its content, or whose prev_hash is not its predecessor's hash, or whose seq skips.
 */
export async function verifyAuditLog(ctx: AppContext, storeId: string) {
  await sealAuditLog(ctx, storeId);
  let previous: { seq: number; hash: string } | null = null;
  let checked = 0;
  let anchor: string | null = null;
  for (;;) {
    const query = ctx.db('auditLog').where({ storeId }).orderBy('seq', 'asc').limit(VERIFY_BATCH).select(COLUMNS);
    if (previous) query.where('seq', '>', previous.seq);
    const rows: Array<Record<string, unknown>> = await query;
    for (const row of rows) {
      const fields = chainedFields(row);
      const prevHash = row.prevHash as string;
      if (!previous) anchor = prevHash;
      let problem: string | null = null;
      if (previous && fields.seq !== previous.seq + 1) problem = `entry ${previous.seq + 1} is missing`;
      else if (previous && prevHash !== previous.hash) problem = 'prev_hash does not match the previous entry';
      else if (entryHash(prevHash, fields) !== row.hash) problem = 'the entry does not match its hash';
      if (problem) return { valid: false, checked, anchor, firstBroken: { seq: fields.seq, id: fields.id, problem } };
      previous = { seq: fields.seq, hash: row.hash as string };
      checked += 1;
    }
    if (rows.length < VERIFY_BATCH) break;
  }
  return { valid: true, checked, anchor: anchor ?? GENESIS_HASH, firstBroken: null };
}
