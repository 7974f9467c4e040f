import type { Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { conflict } from '../../errors.js';
import { releaseDiscount } from '../carts/discount-rules.js';
import type { AppContext } from '../../context.js';
import { publishEvents } from '../events/domain-events.js';

export interface ReservationLine {
  variantId: string;
  quantity: number;
  title: string;
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

/** Merges a session's lines by variant, in variant-id order: the order every transaction locks variants in, so two checkouts never deadlock. */
export function reservationOrder(lines: ReservationLine[]): ReservationLine[] {
  const byVariant = new Map<string, ReservationLine>();
  for (const line of lines) {
    const existing = byVariant.get(line.variantId);
    byVariant.set(line.variantId, existing ? { ...existing, quantity: existing.quantity + line.quantity } : { ...line });
  }
  return [...byVariant.values()].sort((a, b) => (a.variantId < b.variantId ? -1 : 1));
}

/**
 * What TAKE_STOCK_CTES left (`v`'s stock and policy, none when refused): throws the 409 when the
 * stock was not there, else says whether this sold the variant out.
 */
export async function checkTaken(trx: Sql, storeId: string, line: ReservationLine, taken: { inventoryQuantity: number; inventoryPolicy: string } | undefined): Promise<boolean> {
  if (taken) return availabilityFlipped(taken.inventoryPolicy, taken.inventoryQuantity + line.quantity, taken.inventoryQuantity);
  throw await notEnoughStock(trx, storeId, line);
}

/** The 409 for a line whose stock was not there, saying how much is left now. */
export async function notEnoughStock(db: Sql, storeId: string, line: ReservationLine) {
  const current = await db('productVariants').where({ id: line.variantId, storeId }).first('inventoryQuantity', 'archivedAt');
  const left = current && !current.archivedAt ? Math.max(0, current.inventoryQuantity) : 0;
  return conflict('insufficient_inventory', `Not enough stock for ${line.title}`, [{ path: `items.${line.variantId}`, message: `only ${left} left of ${line.title}` }]);
}

/** The error `refuse_insufficient_stock()` raised: a statement that was to take stock found too little. */
export const isStockRefusal = (error: unknown) =>
  (error as { code?: string; message?: string }).code === 'P0001' && (error as { message?: string }).message === 'insufficient_inventory';

/**
 * Takes the stock a checkout session needs, one statement per variant in variant-id order.
 * Returns the variants this sold out (see availabilityFlipped).
 */
export async function reserveStock(trx: Sql, storeId: string, sessionId: string, lines: ReservationLine[]): Promise<string[]> {
  const soldOut: string[] = [];
  for (const line of reservationOrder(lines)) {
    const result = await trx.raw(
      `with ${TAKE_STOCK_CTES}
       select v.inventory_quantity, v.inventory_policy from v`,
      { quantity: line.quantity, variantId: line.variantId, storeId, sessionId, reason: takeReason(sessionId) }
    ).options(PREPARED);
    if (await checkTaken(trx, storeId, line, result.rows[0])) soldOut.push(line.variantId);
  }
  return soldOut;
}

/**
 * Whether a stock move changed what a storefront shows: a variant is available while it sells
 * past zero (`continue`) or has stock. Storefronts show availability, never counts, so only such
 * a move drops their cached catalog.
 */
export const availabilityFlipped = (policy: string, before: number, after: number) => policy === 'deny' && before > 0 !== after > 0;

/**
 * Gives a session's held stock back (and its discount use); the session row must be locked by the
 * caller. The variants are locked before the holds, in id order, as a stock count locks them
 * (lockStockHolds), so a count and a release wait for each other instead of deadlocking, and the
 * release gives back what the hold has after any count shortened it. Returns the variants this
 * brought back into stock (see availabilityFlipped).
 */
export async function releaseSession(trx: Sql, session: { id: string; storeId: string; discountId: string | null }): Promise<string[]> {
  await trx.raw(
    `select id from product_variants
      where id in (select variant_id from stock_reservations where store_id = ? and session_id = ? and state = 'held') and store_id = ?
      order by id for no key update`,
    [session.storeId, session.id, session.storeId]
  );
  const held = (await trx('stockReservations')
    .where({ storeId: session.storeId, sessionId: session.id, state: 'held' })
    .update({ state: 'released' })
    .returning(['variantId', 'quantity'])) as Array<{ variantId: string; quantity: number }>;
  held.sort((a, b) => (a.variantId < b.variantId ? -1 : 1));
  const ledger: Record<string, unknown>[] = [];
  const backInStock: string[] = [];
  // A hold a stock count shortened to nothing has nothing to give back.
  for (const line of held.filter((hold) => hold.quantity > 0)) {
    const result = await trx.raw(
      `update product_variants set inventory_quantity = inventory_quantity + ?, updated_at = now() where id = ? and store_id = ? returning inventory_quantity, inventory_policy`,
      [line.quantity, line.variantId, session.storeId]
    );
    const row = result.rows[0] as { inventoryQuantity: number; inventoryPolicy: string } | undefined;
    if (row && availabilityFlipped(row.inventoryPolicy, row.inventoryQuantity - line.quantity, row.inventoryQuantity)) backInStock.push(line.variantId);
    if (row) ledger.push({ storeId: session.storeId, variantId: line.variantId, delta: line.quantity, reason: `checkout ${session.id} released`, reasonCode: 'cancel', actor: 'customer', reference: `checkout:${session.id}`, quantityAfter: row.inventoryQuantity });
  }
  if (ledger.length) await trx('inventoryLedger').insert(ledger);
  if (session.discountId && held.length) await releaseDiscount(trx, session.storeId, session.discountId);
  return backInStock;
}

/**
 * Cancels a cart's pending sessions (the cart changed, or a new session replaces them). The cart
 * row is locked by the caller, which orders this after any confirm of the same cart.
 */
export async function cancelPendingSessions(trx: Sql, storeId: string, cartId: string): Promise<string[]> {
  const sessions = await trx('checkoutSessions').where({ storeId, cartId, status: 'pending' }).forUpdate().select('id', 'storeId', 'discountId');
  return cancelSessions(trx, sessions);
}

/** Cancels sessions already read and locked under their cart's lock (see lockCart); returns the variants back in stock. */
export async function cancelSessions(trx: Sql, sessions: Array<{ id: string; storeId: string; discountId: string | null }>): Promise<string[]> {
  const released: string[] = [];
  for (const session of sessions) {
    released.push(...(await releaseSession(trx, session)));
    await trx('checkoutSessions').where({ storeId: session.storeId, id: session.id }).update({ status: 'cancelled', updatedAt: trx.fn.now() });
  }
  return released;
}

/** After commit: these variants sold out or came back (the catalog drops its storefront cache). */
export async function stockChanged(ctx: AppContext, storeId: string, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0) return;
  await publishEvents(ctx, [{ type: 'inventory.changed', storeId, variantIds: [...new Set(variantIds)] }]);
}
