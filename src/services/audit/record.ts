import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { entryHash, GENESIS_HASH, type ChainedFields } from './chain.js';
import { currentAuditRequest, type AuditActor } from './context.js';
import { diff, redact } from './redact.js';

export interface AuditEntryInput {
  /** Defaults to the admin request's store. */
  storeId?: string;
  /** `product.updated`, `order.refunded`, …: `<resource>.<past tense>`. */
  action: string;
  resourceType: string;
  resourceId?: string | null;
  /** The record before and after: the entry keeps the fields that differ (secrets redacted). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Or what to keep as it is (redacted), for entries that are not a diff (a sign-in, an export). */
  details?: Record<string, unknown>;
  /** Defaults to the admin request's actor. */
  actor?: AuditActor;
  /** Request id, IP and user agent of a request that is not an admin route's (a sign-in). */
  origin?: AuditOrigin;
}

export interface AuditOrigin {
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Appends one entry to a store's audit log, on `trx`: the caller passes the transaction of the
 * change it records, so the change and its entry commit together or not at all. The store's chain
 * is serialised by a transaction-scoped advisory lock on the store (held to the commit): two writers
 * in one store take turns, writers in different stores never wait on each other.
 */
export async function recordAudit(ctx: AppContext, trx: Sql, input: AuditEntryInput): Promise<void> {
  await recordAudits(ctx, trx, [input]);
}

/**
 * Appends entries of one store in order (a bulk job's entry per product), on `trx` like
 * `recordAudit`: one lock, one read of the chain's head and one insert for all of them.
 */
export async function recordAudits(ctx: AppContext, trx: Sql, inputs: AuditEntryInput[]): Promise<void> {
  if (!ctx.config.audit.enabled || !inputs.length) return;
  const request = currentAuditRequest();
  const storeId = inputs[0]!.storeId ?? request?.storeId;
  if (!storeId) throw new Error(`audit entry ${inputs[0]!.action} has no store`);
  if (inputs.some((input) => (input.storeId ?? request?.storeId) !== storeId)) throw new Error('audit entries of one call belong to one store');
  const sameStore = request && request.storeId === storeId ? request : undefined;
  await trx.raw(`select pg_advisory_xact_lock(hashtextextended('audit:' || ?::text, 0))`, [storeId]);
  const head: { seq: string; hash: string } | undefined = await trx('auditLog').where({ storeId }).orderBy('seq', 'desc').first('seq', 'hash');
  let seq = head ? Number(head.seq) : 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  const createdAt = new Date().toISOString();
  const rows: Array<Record<string, unknown>> = [];
  for (const input of inputs) {
    const actor: AuditActor = input.actor ?? sameStore?.actor ?? request?.actor ?? { type: 'system', name: 'unknown' };
    const changes = input.details !== undefined ? redact(input.details) : input.before !== undefined || input.after !== undefined ? diff(input.before, input.after) : null;
    seq += 1;
    const fields: ChainedFields = {
      storeId,
      seq,
      id: randomUUID(),
      createdAt,
      actorType: actor.type,
      actorUserId: actor.type === 'system' ? null : actor.userId,
      actorApiKeyId: actor.type === 'api_key' ? actor.apiKeyId : null,
      actorEmail: actor.type === 'user' ? actor.email ?? null : actor.type === 'system' ? actor.name : null,
      action: input.action,
      resourceType: input.resourceType,
      resourceId: input.resourceId ?? null,
      // Through JSON once, so what is hashed is exactly what jsonb gives back.
      changes: changes === null ? null : JSON.parse(JSON.stringify(changes)),
      requestId: input.origin?.requestId ?? request?.requestId ?? null,
      ip: input.origin?.ip ?? request?.ip ?? null,
      userAgent: input.origin?.userAgent ?? request?.userAgent ?? null
    };
    const hash = entryHash(prevHash, fields);
    rows.push({ ...fields, changes: fields.changes === null ? null : JSON.stringify(fields.changes), prevHash, hash });
    prevHash = hash;
  }
  // Chunks keep each insert's bind parameters well under PostgreSQL's 65,535.
  for (let i = 0; i < rows.length; i += 1_000) await trx('auditLog').insert(rows.slice(i, i + 1_000));
  if (request) request.recorded += inputs.length;
}
