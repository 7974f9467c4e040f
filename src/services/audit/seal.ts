import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { entryHash, GENESIS_HASH, type ChainedFields } from './chain.js';
import { outsideAuditRequest } from './context.js';

/** Entries sealed per transaction (a bulk job's thousands go in a few). */
const SEAL_BATCH = 2_000;
/** How long after a change commits its entries wait to be sealed: changes close together share a seal. */
const SEAL_DELAY_MS = 50;

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
    const sealed = await withTransaction(ctx, (trx) => sealBatch(trx, storeId));
    total += sealed;
    if (sealed < SEAL_BATCH) return total;
  }
}

async function sealBatch(trx: Sql, storeId: string): Promise<number> {
  await trx.raw(`select pg_advisory_xact_lock(hashtextextended('audit:' || ?::text, 0))`, [storeId]);
  const pending: Array<Record<string, unknown>> = await trx('auditPending').where({ storeId }).orderBy('pendingId').limit(SEAL_BATCH).select(PENDING_COLUMNS);
  if (!pending.length) return 0;
  await trx.raw(`set local shopwright.audit_seal = 'on'`);
  const head: { seq: string; hash: string } | undefined = await trx('auditLog').where({ storeId }).orderBy('seq', 'desc').first('seq', 'hash');
  let seq = head ? Number(head.seq) : 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
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
  // Chunks keep each insert's bind parameters well under PostgreSQL's 65,535.
  for (let i = 0; i < rows.length; i += 1_000) await trx('auditLog').insert(rows.slice(i, i + 1_000));
  await trx('auditPending')
    .where({ storeId })
    .where('pendingId', '<=', pending[pending.length - 1]!.pendingId as string)
    .whereIn('pendingId', pending.map((row) => row.pendingId as string))
    .delete();
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
