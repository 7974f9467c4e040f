import type { Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { conflict } from '../../errors.js';
import { releaseDiscount } from '../discounts/index.js';
import { availabilityFlipped, releaseHolds, TAKE_STOCK_CTES, takeReason } from '../catalog/index.js';
import type { AppContext } from '../../context.js';
import { publishEvents } from '../../platform/events/domain-events.js';

export interface ReservationLine {
  variantId: string;
  quantity: number;
  title: string;
}


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
 * Gives a session's held stock back (catalog's releaseHolds) and its discount use; the session row
 * must be locked by the caller. Returns the variants this brought back into stock.
 */
export async function releaseSession(trx: Sql, session: { id: string; storeId: string; discountId: string | null }): Promise<string[]> {
  const { held, backInStock } = await releaseHolds(trx, session.storeId, session.id, `checkout ${session.id} released`);
  if (session.discountId && held) await releaseDiscount(trx, session.storeId, session.discountId);
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
