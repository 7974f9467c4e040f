import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import type { ChainedFields } from './chain.js';
import { currentAuditRequest, type AuditActor } from './context.js';
import { diff, redact } from './redact.js';
import { scheduleSeal } from './seal.js';
import { runsBeforeCommit } from '../../platform/with-transaction.js';

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
 * change it records, so the change and its entry commit together or not at all. The entry goes to
 * `audit_pending` with no lock (concurrent changes in one store commit side by side, as they do with
 * the log off) and is sealed into the store's hash chain right after the commit, in a batch with its
 * neighbours (seal.ts). On a `withTransaction` handle the entries are written in the transaction's
 * `beforeCommit`, one insert for all of them.
 */
export async function recordAudit(ctx: AppContext, trx: Sql, input: AuditEntryInput): Promise<void> {
  await recordAudits(ctx, trx, [input]);
}

/**
 * Appends entries of one store in order (a bulk job's entry per product), on `trx` like
 * `recordAudit`: one insert for all of them.
 */
export async function recordAudits(ctx: AppContext, trx: Sql, inputs: AuditEntryInput[]): Promise<void> {
  if (!ctx.config.audit.enabled || !inputs.length) return;
  const request = currentAuditRequest();
  const storeId = inputs[0]!.storeId ?? request?.storeId;
  if (!storeId) throw new Error(`audit entry ${inputs[0]!.action} has no store`);
  if (inputs.some((input) => (input.storeId ?? request?.storeId) !== storeId)) throw new Error('audit entries of one call belong to one store');
  const sameStore = request && request.storeId === storeId ? request : undefined;
  const entries: Unchained[] = inputs.map((input) => {
    const actor: AuditActor = input.actor ?? sameStore?.actor ?? request?.actor ?? { type: 'system', name: 'unknown' };
    const changes = input.details !== undefined ? redact(input.details) : input.before !== undefined || input.after !== undefined ? diff(input.before, input.after) : null;
    return {
      storeId,
      id: randomUUID(),
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
  });
  recordedIn.add(trx);
  if (runsBeforeCommit(trx)) {
    const queue = queued.get(trx);
    if (queue) queue.push(...entries);
    else queued.set(trx, entries);
  } else {
    await appendPending(ctx, trx, entries);
  }
  if (request) {
    // Counted once it commits: a rolled-back entry (and its change) is no entry.
    const committed = (trx as Partial<Transaction>).committed;
    if (committed) committed.then(() => (request.recorded += entries.length), () => undefined);
    else request.recorded += entries.length;
  }
}

/** An entry before its place in the chain: all but seq, time and the hashes. */
type Unchained = Omit<ChainedFields, 'seq' | 'createdAt'>;

/** Entries recorded on a `withTransaction` handle, appended in its `beforeCommit`. */
const queued = new WeakMap<object, Unchained[]>();

/**
 * Writes the entries to `audit_pending`, in the caller's transaction and without a lock; once that
 * commits, the store's seal (seal.ts) chains them into `audit_log`. The time is taken here, at the
 * change, not at the seal.
 */
async function appendPending(ctx: AppContext, trx: Sql, entries: Unchained[]): Promise<void> {
  const createdAt = new Date().toISOString();
  const rows = entries.map((entry) => ({ ...entry, createdAt, changes: entry.changes === null ? null : JSON.stringify(entry.changes) }));
  // Chunks keep each insert's bind parameters well under PostgreSQL's 65,535 (a bulk job's entries).
  for (let i = 0; i < rows.length; i += 1_000) await trx('auditPending').insert(rows.slice(i, i + 1_000));
  const stores = new Set(entries.map((entry) => entry.storeId));
  const committed = (trx as Partial<Transaction>).committed;
  const seal = () => {
    for (const storeId of stores) scheduleSeal(ctx, storeId);
  };
  if (committed) committed.then(seal, () => undefined);
  else seal();
}

/** The audit module's `beforeCommit`: the transaction's recorded entries, then (outermost) the request's generic one. */
export async function auditBeforeCommit(ctx: AppContext, trx: Transaction, outermost: boolean): Promise<void> {
  if (outermost) await recordPendingAudit(ctx, trx);
  const entries = queued.get(trx);
  if (!entries) return;
  queued.delete(trx);
  await appendPending(ctx, trx, entries);
}

/** The transaction handles an entry was written on (the generic entry is for transactions without one). */
const recordedIn = new WeakSet<object>();

/**
 * The audit module's `beforeCommit`: in a state-changing admin request that has no entry yet, a
 * transaction that changed something (PostgreSQL gave it a transaction id: it wrote or locked
 * rows) and recorded nothing itself gets the request's generic entry, so it commits with the change.
 * Costs one statement, and only in such transactions; a service that records its own entry
 * (product edits, refunds, …) never pays it.
 */
async function recordPendingAudit(ctx: AppContext, trx: Transaction): Promise<void> {
  const request = currentAuditRequest();
  if (!request?.pending || request.recorded > 0 || recordedIn.has(trx) || !ctx.config.audit.enabled) return;
  const { rows } = (await trx.raw('select txid_current_if_assigned() is not null as wrote')) as { rows: Array<{ wrote: boolean }> };
  if (!rows[0]?.wrote) return;
  await recordAudit(ctx, trx, request.pending);
}
