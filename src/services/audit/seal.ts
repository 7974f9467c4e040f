import type { AppContext } from '../../context.js';
import { defineStatement, runStatements, runStatementsAndCommit } from '../../db/prepared-statements.js';
import type { Transaction } from '../../db/transaction.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { entryHash, GENESIS_HASH, sharedFieldArrays, type ChainedFields } from './chain.js';
import { outsideAuditRequest } from './context.js';

/** Entries sealed per transaction (a bulk job's thousands go in a few). */
const SEAL_BATCH = 2_000;
/** How long after a change commits its entries wait to be sealed: changes close together share a seal. */
// 1 s: at 340 product updates a second in one store (the audit bench, two cores), a seal every
// 200 ms cost 8-9% more CPU per update than the log off, every second 4%: a seal's own work
// (its transaction, the chain lock, the head's lookup, its statements) is paid per batch. An entry
// is tamper-evident that much later; the list, verify and the export seal first, so they never
// miss a committed entry (docs/security.md).
const SEAL_DELAY_MS = 1_000;

/**
 * Seals a store's pending entries into its hash chain, oldest first (by `pending_id`), and returns
 * how many. A change writes its entry to `audit_pending` in its own transaction, without a lock (so
 * concurrent changes in one store commit side by side); this takes the store's chain lock once for
 * a whole batch, reads the chain's head, inserts the batch into `audit_log` hashed in order and
 * deletes it from `audit_pending`, in one transaction: an entry is pending or chained, never both,
 * never neither. Readers (the list, verify, the export) seal first, so they see every committed entry.
 * Outside any admin request: the seal is not the request's change (no generic entry joins it).
 */
export async function sealAuditLog(ctx: AppContext, storeId: string): Promise<number> {
  return outsideAuditRequest(async () => {
    let total = 0;
    for (;;) {
      const sealed = await withTransaction(ctx, (trx) => sealBatch(trx, storeId), { pipelined: true });
      total += sealed;
      if (sealed < SEAL_BATCH) return total;
    }
  });
}

// The seal's statements, prepared (parsed and planned once per connection), each one shape whatever
// the batch's size: the batch goes as arrays, unnested in order.
const LOCK = defineStatement(`select pg_advisory_xact_lock(hashtextextended('audit:' || :storeId::text, 0)), set_config('shopwright.audit_seal', 'on', true)`);
const READ = defineStatement(
  `select p.pending_id, p.id, p.created_at, p.actor_type, p.actor_user_id, p.actor_api_key_id, p.actor_email, p.action, p.resource_type, p.resource_id,
          p.changes, p.request_id, p.ip, p.user_agent, h.seq as head_seq, h.hash as head_hash
     from (select pending_id, id, created_at, actor_type, actor_user_id, actor_api_key_id, actor_email, action, resource_type, resource_id, changes, request_id, ip, user_agent
             from audit_pending where store_id = :storeId order by pending_id limit :limit) p
     left join lateral (select seq, hash from audit_log where store_id = :storeId order by seq desc limit 1) h on true
    order by p.pending_id`
);
const INSERT = defineStatement(
  `insert into audit_log (store_id, seq, id, created_at, actor_type, actor_user_id, actor_api_key_id, actor_email, action, resource_type, resource_id, changes, request_id, ip, user_agent, prev_hash, hash)
   select :storeId::uuid, e.*
     from unnest(:seqs::bigint[], :ids::uuid[], :createdAts::timestamptz[], :actorTypes::text[], :actorUserIds::uuid[], :actorApiKeyIds::uuid[], :actorEmails::text[],
                 :actions::text[], :resourceTypes::text[], :resourceIds::text[], :changes::jsonb[], :requestIds::text[], :ips::text[], :userAgents::text[],
                 :prevHashes::text[], :hashes::text[]) as e`
);
const DELETE = defineStatement(`delete from audit_pending where store_id = :storeId and pending_id = any(:pendingIds::bigint[])`);

/**
 * Two round trips (the transaction is pipelined): BEGIN, the lock and the read together; the
 * insert, the delete and the COMMIT together. The read is a statement of its own after the lock's,
 * not part of it: a statement's snapshot is taken when it starts, and one taken before the lock was
 * granted would miss the previous seal's commit (its entries still pending, its head not yet there).
 */
async function sealBatch(trx: Transaction, storeId: string): Promise<number> {
  const [, result] = await runStatements(trx, [
    { statement: LOCK, values: { storeId } },
    { statement: READ, values: { storeId, limit: SEAL_BATCH } }
  ]);
  const pending = result!.rows;
  if (!pending.length) return 0;
  const head = pending[0]!;
  let seq = head.headSeq === null || head.headSeq === undefined ? 0 : Number(head.headSeq);
  let prevHash = (head.headHash as string | null) ?? GENESIS_HASH;
  const rows = pending.map((row) => {
    const fields: ChainedFields = {
      storeId,
      seq: ++seq,
      id: row.id as string,
      createdAt: (row.createdAt as Date).toISOString(),
      actorType: row.actorType as string,
      actorUserId: (row.actorUserId as string | null) ?? null,
      actorApiKeyId: (row.actorApiKeyId as string | null) ?? null,
      actorEmail: (row.actorEmail as string | null) ?? null,
      action: row.action as string,
      resourceType: row.resourceType as string,
      resourceId: (row.resourceId as string | null) ?? null,
      changes: row.changes ?? null,
      requestId: (row.requestId as string | null) ?? null,
      ip: (row.ip as string | null) ?? null,
      userAgent: (row.userAgent as string | null) ?? null
    };
    const hash = entryHash(prevHash, fields);
    const chained = { fields, prevHash, hash };
    prevHash = hash;
    return chained;
  });
  const fieldsOf = rows.map((row) => row.fields);
  const insert = {
    storeId,
    seqs: fieldsOf.map((fields) => fields.seq),
    createdAts: fieldsOf.map((fields) => fields.createdAt),
    ...sharedFieldArrays(fieldsOf),
    // As hashed: the JSON of what jsonb gave back.
    changes: rows.map((row) => (row.fields.changes === null ? null : JSON.stringify(row.fields.changes))),
    prevHashes: rows.map((row) => row.prevHash),
    hashes: rows.map((row) => row.hash)
  };
  await runStatementsAndCommit(trx, [
    { statement: INSERT, values: insert },
    { statement: DELETE, values: { storeId, pendingIds: pending.map((row) => row.pendingId as string) } }
  ]);
  return pending.length;
}

/** Stores with a seal on its way, per app (its timer, and whether more came in while it ran). */
const scheduled = new WeakMap<AppContext, Map<string, { timer: NodeJS.Timeout | null; running: boolean; again: boolean }>>();
/** Who waits for an app's scheduled seals to be over (`scheduledSealsDone`). */
const settledWaiters = new WeakMap<AppContext, Array<() => void>>();

/**
 * Resolves once no seal is scheduled or running in this app: what its changes scheduled has been
 * sealed (or, failing, left pending for the sweep). For a test that needs the scheduled seals out
 * of its way; a reader seals itself instead (`sealAuditLog`).
 */
export function scheduledSealsDone(ctx: AppContext): Promise<void> {
  if (!scheduled.get(ctx)?.size) return Promise.resolve();
  return new Promise((resolve) => {
    const waiters = settledWaiters.get(ctx);
    if (waiters) waiters.push(resolve);
    else settledWaiters.set(ctx, [resolve]);
  });
}

/**
 * Seals the store's pending entries soon (SEAL_DELAY_MS), once for all the changes that commit in
 * the meantime. Outside the request that asked (its audit context would make the seal's transaction
 * look like the request's own change). A failure leaves the entries pending for the next seal, the
 * next read or the scheduled sweep (`sealAllPending`); a closed app's timer finds its pool gone and
 * gives up quietly for the same reason.
 */
export function scheduleSeal(ctx: AppContext, storeId: string): void {
  let stores = scheduled.get(ctx);
  if (!stores) scheduled.set(ctx, (stores = new Map()));
  const state = stores.get(storeId) ?? { timer: null, running: false, again: false };
  stores.set(storeId, state);
  if (state.running) {
    state.again = true;
    return;
  }
  if (state.timer) return;
  state.timer = outsideAuditRequest(() =>
    setTimeout(() => {
      state.timer = null;
      state.running = true;
      sealAuditLog(ctx, storeId)
        .catch((error: unknown) => ctx.log.debug({ err: error, storeId }, 'audit seal deferred: the entries stay pending for the next seal'))
        .finally(() => {
          state.running = false;
          if (state.again) {
            state.again = false;
            scheduleSeal(ctx, storeId);
          } else {
            stores!.delete(storeId);
            if (!stores!.size) for (const resolve of settledWaiters.get(ctx)?.splice(0) ?? []) resolve();
          }
        });
    }, SEAL_DELAY_MS).unref()
  );
}

/** The scheduled sweep: every store's pending entries (left by a process that stopped before its seal). */
export async function sealAllPending(ctx: AppContext): Promise<number> {
  const stores: Array<{ storeId: string }> = await ctx.db('auditPending').comment('cross-store: audit seal sweep').distinct('storeId');
  let total = 0;
  for (const { storeId } of stores) total += await sealAuditLog(ctx, storeId);
  return total;
}
