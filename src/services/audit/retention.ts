import type { AppContext } from '../../context.js';
import { withTransaction } from '../with-transaction.js';

const PURGE_BATCH = 5_000;

/**
 * The scheduled retention purge: deletes, in every store, entries older than the store's
 * `audit_retention_days`, oldest first, a batch per transaction. The only writer allowed to delete:
 * it sets `shopwright.audit_purge` for its own transaction (SET LOCAL), which the table's trigger
 * checks. It never deletes a store's newest entry (the chain goes on from it), and what it leaves is
 * a suffix of the chain: verify trusts the oldest kept entry's prev_hash as the anchor.
 */
export async function purgeExpiredAuditEntries(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await withTransaction(ctx, async (trx) => {
      await trx.raw(`set local shopwright.audit_purge = 'on'`);
      const result = await trx.raw(
        `/* cross-store: audit retention purge */
         delete from audit_log a
          using (select e.store_id, e.seq
                   from audit_log e join stores s on s.id = e.store_id
                  where e.created_at < now() - make_interval(days => s.audit_retention_days)
                    and e.seq < (select max(h.seq) from audit_log h where h.store_id = e.store_id)
                  order by e.created_at
                  limit ?) old
          where a.store_id = old.store_id and a.seq = old.seq`,
        [PURGE_BATCH]
      );
      return (result as { rowCount: number }).rowCount ?? 0;
    });
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
  }
}
