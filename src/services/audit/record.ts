import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { defineStatement, runStatements, type StatementCall } from '../../db/prepared-statements.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { sharedFieldArrays, type ChainedFields } from './chain.js';
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
      // As JSON, once: the seal hashes what jsonb gives back of it.
      changes: changes === null ? null : JSON.stringify(changes),
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

/** An entry before its place in the chain: all but seq, time and the hashes; its changes as JSON. */
type Unchained = Omit<ChainedFields, 'seq' | 'createdAt' | 'changes'> & { changes: string | null };

/** Entries recorded on a `withTransaction` handle, appended in its `beforeCommit`. */
const queued = new WeakMap<object, Unchained[]>();

/**
 * The entries' insert into `audit_pending`: one prepared statement whatever their number (the
 * columns as arrays, unnested in order, so `pending_id` follows the order they were recorded in).
 */
const INSERT_PENDING = defineStatement(
  `insert into audit_pending (store_id, created_at, id, actor_type, actor_user_id, actor_api_key_id, actor_email, action, resource_type, resource_id, changes, request_id, ip, user_agent)
   select :storeId::uuid, :createdAt::timestamptz, e.*
     from unnest(:ids::uuid[], :actorTypes::text[], :actorUserIds::uuid[], :actorApiKeyIds::uuid[], :actorEmails::text[], :actions::text[],
                 :resourceTypes::text[], :resourceIds::text[], :changes::jsonb[], :requestIds::text[], :ips::text[], :userAgents::text[]) as e`
);

/** Entries per insert: a bulk job's thousands go in a few statements. */
const INSERT_CHUNK = 1_000;

/**
 * The statements writing the entries to `audit_pending`, in the caller's transaction and without a
 * lock; once that commits, the store's seal (seal.ts) chains them into `audit_log`. The time is
 * taken here, at the change, not at the seal. `withTransaction` sends them with its COMMIT.
 */
function pendingInserts(ctx: AppContext, trx: Sql, entries: Unchained[]): StatementCall[] {
  const createdAt = new Date().toISOString();
  const calls: StatementCall[] = [];
  // One store per statement (a sign-in writes an entry in each of the member's stores), each store's in order.
  const byStore = new Map<string, Unchained[]>();
  for (const entry of entries) {
    const list = byStore.get(entry.storeId);
    if (list) list.push(entry);
    else byStore.set(entry.storeId, [entry]);
  }
  for (const [storeId, ofStore] of byStore) for (let i = 0; i < ofStore.length; i += INSERT_CHUNK) {
    const chunk = ofStore.slice(i, i + INSERT_CHUNK);
    calls.push({
      statement: INSERT_PENDING,
      values: {
        storeId,
        createdAt,
        ...sharedFieldArrays(chunk),
        changes: chunk.map((entry) => entry.changes)
      }
    });
  }
  const committed = (trx as Partial<Transaction>).committed;
  const seal = () => {
    for (const storeId of byStore.keys()) scheduleSeal(ctx, storeId);
  };
  if (committed) committed.then(seal, () => undefined);
  else calls[calls.length - 1]!.ran = seal;
  return calls;
}

/** Writes the entries now, on `trx` (a handle whose COMMIT `withTransaction` does not manage). */
async function appendPending(ctx: AppContext, trx: Sql, entries: Unchained[]): Promise<void> {
  await runStatements(trx, pendingInserts(ctx, trx, entries));
}

/**
 * The audit module's `beforeCommit`: (outermost) the request's generic entry if it needs one, then
 * the insert of the transaction's entries, handed back to go out with the COMMIT.
 */
export async function auditBeforeCommit(ctx: AppContext, trx: Transaction, outermost: boolean): Promise<StatementCall[] | undefined> {
  if (outermost) await recordPendingAudit(ctx, trx);
  const entries = queued.get(trx);
  if (!entries) return undefined;
  queued.delete(trx);
  return pendingInserts(ctx, trx, entries);
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
