import type { Sql } from '../../db/transaction.js';

/*
 * Stock holds: the units a checkout session holds (stock_reservations) are the catalog's, with the
 * stock they come from (product_variants) and its ledger (inventory_ledger). A checkout takes,
 * converts and gives back its holds through the statements here; a stock count shortens them.
 */

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

/**
 * Takes one variant's stock for a session, as CTEs for the caller's statement: `v` (the variant as
 * left; no row when refused), `r` (the hold), `l` (the ledger row). The WHERE refuses to take a
 * `deny` variant below zero: the 409 is decided by the row lock, not by a read that could be
 * stale. Named bindings: quantity, variantId, storeId, sessionId, reason (takeReason).
 */
export const TAKE_STOCK_CTES = `v as (
         update product_variants set inventory_quantity = inventory_quantity - :quantity, updated_at = now()
          where id = :variantId and store_id = :storeId and archived_at is null
            and (inventory_policy = 'continue' or inventory_quantity >= :quantity)
          returning id, inventory_quantity, inventory_policy
       ), r as (
         insert into stock_reservations (store_id, session_id, variant_id, quantity) select :storeId, :sessionId, v.id, :quantity from v returning 1
       ), l as (
         insert into inventory_ledger (store_id, variant_id, delta, reason, reason_code, actor, reference, quantity_after)
         select :storeId, v.id, -(:quantity)::int, :reason, 'sale', 'customer', 'checkout:' || :sessionId, v.inventory_quantity from v returning 1
       )`;

export const takeReason = (sessionId: string) => `checkout ${sessionId} reserved`;

/**
 * Whether a stock move changed what a storefront shows: a variant is available while it sells
 * past zero (`continue`) or has stock. Storefronts show availability, never counts, so only such
 * a move drops their cached catalog.
 */
export const availabilityFlipped = (policy: string, before: number, after: number) => policy === 'deny' && before > 0 !== after > 0;

/** A session's held stock becomes its order's: a CTE for the caller's statement (named binding: sessionId). */
export const CONVERT_HOLDS_SQL = `update stock_reservations set state = 'converted' where session_id = :sessionId and state = 'held' returning 1`;

/**
 * Gives a session's held stock back; the session row must be locked by the caller. The variants
 * are locked before the holds, in id order, as a stock count locks them (lockStockHolds), so a
 * count and a release wait for each other instead of deadlocking, and the release gives back what
 * the hold has after any count shortened it. Says whether the session held anything, and which
 * variants this brought back into stock (see availabilityFlipped).
 */
export async function releaseHolds(trx: Sql, storeId: string, sessionId: string, reason: string): Promise<{ held: boolean; backInStock: string[] }> {
  await trx.raw(
    `select id from product_variants
      where id in (select variant_id from stock_reservations where store_id = ? and session_id = ? and state = 'held') and store_id = ?
      order by id for no key update`,
    [storeId, sessionId, storeId]
  );
  const held = (await trx('stockReservations')
    .where({ storeId, sessionId, state: 'held' })
    .update({ state: 'released' })
    .returning(['variantId', 'quantity'])) as Array<{ variantId: string; quantity: number }>;
  held.sort((a, b) => (a.variantId < b.variantId ? -1 : 1));
  const ledger: Record<string, unknown>[] = [];
  const backInStock: string[] = [];
  // A hold a stock count shortened to nothing has nothing to give back.
  for (const line of held.filter((hold) => hold.quantity > 0)) {
    const result = await trx.raw(
      `update product_variants set inventory_quantity = inventory_quantity + ?, updated_at = now() where id = ? and store_id = ? returning inventory_quantity, inventory_policy`,
      [line.quantity, line.variantId, storeId]
    );
    const row = result.rows[0] as { inventoryQuantity: number; inventoryPolicy: string } | undefined;
    if (row && availabilityFlipped(row.inventoryPolicy, row.inventoryQuantity - line.quantity, row.inventoryQuantity)) backInStock.push(line.variantId);
    if (row) ledger.push({ storeId, variantId: line.variantId, delta: line.quantity, reason, reasonCode: 'cancel', actor: 'customer', reference: `checkout:${sessionId}`, quantityAfter: row.inventoryQuantity });
  }
  if (ledger.length) await trx('inventoryLedger').insert(ledger);
  return { held: held.length > 0, backInStock };
}
