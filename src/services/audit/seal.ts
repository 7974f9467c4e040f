import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { entryHash, GENESIS_HASH, type ChainedFields } from './chain.js';
import { outsideAuditRequest } from './context.js';

/** Entries sealed per transaction (a bulk job's thousands go in a few). */
const SEAL_BATCH = 2_000;
/** How long after a change commits its entries wait to be sealed: changes close together share a seal. */
// 200 ms: at a hundred changes a second in one store, a seal (three round trips) per ~20 entries
// rather than per ~5; an entry is tamper-evident that much later (docs/security.md).
const SEAL_DELAY_MS = 200;

const PENDING_COLUMNS = ['pendingId', 'id', 'createdAt', 'actorType', 'actorUserId', 'actorApiKeyId', 'actorEmail', 'action', 'resourceType', 'resourceId', 'changes', 'requestId', 'ip', 'userAgent'];

/**
 * Seals a store's pending entries into its hash chain, oldest first (by `pending_id`), and returns
 * how many. A change writes its entry to `audit_pending` in its own transaction, without a lock (so
 * concurrent changes in one store commit side by side); this takes the store's chain lock once for
 * a whole batch, reads the chain's head, inserts the batch into `audit_log` hashed in order and
 * deletes it from `audit_pending`, in one transaction: an entry is pending or chained, never both,
 * never neither. Readers (the list, verify, the export) seal first, so they see every committed entry.
 */
export async function sealAuditLog(ctx: AppContext, storeId: string): Promise<number> {
  let total = 0;
  for (;;) {
    const sealed = await withTransaction(ctx, (trx) => sealBatch(trx, storeId), { pipelined: true });
    total += sealed;
    if (sealed < SEAL_BATCH) return total;
  }
}

const PENDING_SELECT = PENDING_COLUMNS.map((column) => `p.${column.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`).join(', ');

/**
 * Three round trips (the transaction is pipelined): BEGIN, the lock and the read together; the
 * insert and the delete together; COMMIT. The read is a statement of its own after the lock's, not
 * part of it: a statement's snapshot is taken when it starts, and one taken before the lock was
 * granted would miss the previous seal's commit (its entries still pending, its head not yet there).
 */
async function sealBatch(trx: Sql, storeId: string): Promise<number> {
  const locked = trx.raw(`select pg_advisory_xact_lock(hashtextextended('audit:' || ?::text, 0)), set_config('shopwright.audit_seal', 'on', true)`, [storeId]);
  const read = trx.raw(
    `select ${PENDING_SELECT}, h.seq as head_seq, h.hash as head_hash
       from (select * from audit_pending where store_id = ? order by pending_id limit ?) p
       left join lateral (select seq, hash from audit_log where store_id = ? order by seq desc limit 1) h on true
      order by p.pending_id`,
    [storeId, SEAL_BATCH, storeId]
  );
  const [, result] = (await Promise.all([locked, read])) as [unknown, { rows: Array<Record<string, unknown>> }];
  const pending = result.rows;
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
    const inserted = { ...fields, changes: fields.changes === null ? null : JSON.stringify(fields.changes), prevHash, hash };
    prevHash = hash;
    return inserted;
  });
  const writes: Array<PromiseLike<unknown>> = [];
  // Chunks keep each insert's bind parameters well under PostgreSQL's 65,535.
  for (let i = 0; i < rows.length; i += 1_000) writes.push(trx('auditLog').insert(rows.slice(i, i + 1_000)));
  writes.push(
    trx('auditPending')
      .where({ storeId })
      .where('pendingId', '<=', pending[pending.length - 1]!.pendingId as string)
      .whereIn('pendingId', pending.map((row) => row.pendingId as string))
      .delete()
  );
  await Promise.all(writes);
  return pending.length;
}

/** Stores with a seal on its way, per app (its timer, and whether more came in while it ran). */
const scheduled = new WeakMap<AppContext, Map<string, { timer: NodeJS.Timeout | null; running: boolean; again: boolean }>>();

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
          } else stores!.delete(storeId);
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
