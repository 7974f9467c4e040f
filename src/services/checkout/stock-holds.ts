import type { Sql } from '../../db/transaction.js';

/**
 * A stock count's part of the holds: locks the variant's open checkout holds (the caller has
 * locked the variant row, in its own statement before this one, so every hold committed before
 * that lock is seen) and, when `keepAtMost` is given and they hold more, shortens the newest first
 * until that many units stay held: the units a count says are not there cannot come back when
 * their checkout expires. Sessions whose hold was shortened still complete (the contract reserves
 * stock until expiry; the payment may be taken); the count stands. Returns the units held before
 * and after.
 */
export async function lockStockHolds(trx: Sql, storeId: string, variantId: string, keepAtMost: number | null): Promise<{ before: number; after: number }> {
  const holds = (await trx('stockReservations')
    .where({ storeId, variantId, state: 'held' })
    .orderBy([
      { column: 'createdAt', order: 'desc' },
      { column: 'id', order: 'desc' }
    ])
    .forUpdate()
    .select('id', 'quantity')) as Array<{ id: string; quantity: number }>;
  const before = holds.reduce((sum, hold) => sum + hold.quantity, 0);
  let excess = keepAtMost === null ? 0 : Math.max(0, before - keepAtMost);
  for (const hold of holds) {
    if (excess === 0) break;
    const cut = Math.min(hold.quantity, excess);
    if (cut === 0) continue;
    await trx('stockReservations').where({ storeId, id: hold.id }).update({ quantity: hold.quantity - cut });
    excess -= cut;
  }
  return { before, after: Math.min(before, keepAtMost ?? before) };
}
