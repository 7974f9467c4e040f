import { restockUnits, type InventoryChange } from '../catalog/inventory.js';
import type { Transaction } from '../../db/transaction.js';

/** What one restock asked for a line, and what it really put back. */
export interface RestockedLine {
  orderItemId: string;
  /** Units asked to go back. */
  quantity: number;
  /** Units that went back: at most what was sold less what earlier restocks put back. */
  restockedQuantity: number;
}

export interface OrderRestock {
  lines: RestockedLine[];
  /** Units put back, all lines together. */
  restockedQuantity: number;
  /** Variants whose availability came back (for `inventory.changed`). */
  backInStock: string[];
}

/**
 * Puts units of an order's lines back on the shelf, each line capped at what was sold less what
 * was already put back (`order_items.restocked_quantity`), so a cancel, a refund and a return of
 * the same units (in any order, or at once) restock each unit once. A capped restock is not an
 * error: the operation that asked still succeeds, and its answer says how many units went back.
 *
 * Runs inside the caller's transaction, after the caller locked the variants (id order) and then
 * the order row FOR UPDATE: every operation that restocks (cancel, refund settlement, return
 * receipt, the unpaid-order schedule) holds that order lock, so they serialise on it, and the lines
 * are locked here too so the read of `restocked_quantity` and its update cannot be interleaved.
 * The stock itself moves through catalog's `restockUnits` (the one stock path: ledger rows, locks in
 * id order). A line whose variant was deleted puts nothing back and counts nothing.
 */
export async function restockOrderLines(
  trx: Transaction,
  storeId: string,
  orderId: string,
  wanted: Array<{ orderItemId: string; quantity: number }>,
  change: InventoryChange
): Promise<OrderRestock> {
  const asked = new Map<string, number>();
  for (const line of wanted) if (line.quantity > 0) asked.set(line.orderItemId, (asked.get(line.orderItemId) ?? 0) + line.quantity);
  if (asked.size === 0) return { lines: [], restockedQuantity: 0, backInStock: [] };

  const items = (await trx('orderItems')
    .where({ storeId, orderId })
    .whereIn('id', [...asked.keys()])
    .orderBy('id')
    .forUpdate()
    .select('id', 'variantId', 'quantity', 'restockedQuantity')) as Array<{ id: string; variantId: string | null; quantity: number; restockedQuantity: number }>;
  const byId = new Map(items.map((item) => [item.id, item]));

  const units = new Map<string, number>();
  const lines: RestockedLine[] = [];
  let total = 0;
  for (const [orderItemId, quantity] of asked) {
    const item = byId.get(orderItemId);
    const room = item ? Math.max(item.quantity - item.restockedQuantity, 0) : 0;
    const restockedQuantity = item?.variantId ? Math.min(quantity, room) : 0;
    if (restockedQuantity > 0) {
      await trx('orderItems')
        .where({ storeId, id: orderItemId })
        .update({ restockedQuantity: trx.raw('restocked_quantity + ?', [restockedQuantity]) });
      units.set(item!.variantId!, (units.get(item!.variantId!) ?? 0) + restockedQuantity);
      total += restockedQuantity;
    }
    lines.push({ orderItemId, quantity, restockedQuantity });
  }
  const backInStock = await restockUnits(trx, storeId, units, { ...change, orderId });
  return { lines, restockedQuantity: total, backInStock };
}
