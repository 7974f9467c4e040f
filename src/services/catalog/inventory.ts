import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { lockStockHolds } from './stock-holds.js';
import type { InventoryPolicy, VariantRow } from './product-rows.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

/** Why stock moved: every ledger row carries one (issue #33). */
export const LEDGER_REASONS = ['sale', 'cancel', 'refund', 'return', 'manual', 'import', 'bulk', 'sync'] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

export interface InventoryChange {
  /** Who made the change (null for the storefront/checkout). */
  userId?: string | null;
  /** The free-text note (the ledger's `reason` column). */
  reason?: string | null;
  /** The ledger's reason code; `manual` when not given. */
  code?: LedgerReason;
  /** The order or job that caused the move. */
  orderId?: string | null;
  jobId?: string | null;
  /** When given, the variant must belong to this product. */
  productId?: string;
}

export interface InventoryResult {
  variant: VariantRow;
  adjustment: { id: string; delta: number; reason: string | null; quantityAfter: number; createdAt: Date } | null;
  /** Units held by open checkouts: on hand = variant.inventoryQuantity + reserved. */
  reserved: number;
}

/** Stock is kept within ±1e9 (what `{ quantity }` accepts): far inside the integer column, so sums never overflow. */
export const MAX_STOCK = 1_000_000_000;

const outOfRange = (current: number) =>
  conflict('conflict', `Stock would leave the range -${MAX_STOCK}..${MAX_STOCK}`, [{ path: 'delta', message: `${current} in stock; the result must stay within ±${MAX_STOCK}` }]);

const insufficient = (available: number) =>
  conflict('insufficient_inventory', 'Not enough stock for this change', [{ path: 'delta', message: `only ${available} in stock` }]);

/** The ledger columns of a change (everything but the variant, delta and quantity after). */
export function ledgerColumns(change: InventoryChange) {
  return {
    userId: change.userId ?? null,
    reason: change.reason ?? null,
    reasonCode: change.code ?? 'manual',
    actor: change.jobId ? 'job' : change.userId ? 'user' : 'system',
    orderId: change.orderId ?? null,
    jobId: change.jobId ?? null
  };
}

async function writeLedger(trx: Transaction, storeId: string, variant: VariantRow, delta: number, change: InventoryChange) {
  const [row] = await trx('inventoryLedger')
    .insert({ storeId, variantId: variant.id, delta, quantityAfter: variant.inventoryQuantity, ...ledgerColumns(change) })
    .returning(['id', 'delta', 'reason', 'quantityAfter', 'createdAt']);
  return row as NonNullable<InventoryResult['adjustment']>;
}

async function explainMiss(trx: Transaction, storeId: string, variantId: string, change: InventoryChange, delta = 0): Promise<never> {
  const query = trx('productVariants').where({ id: variantId, storeId }).whereNull('archivedAt');
  if (change.productId) query.where({ productId: change.productId });
  const existing: VariantRow | undefined = await query.first();
  if (!existing) throw notFound('Variant');
  if (Math.abs(existing.inventoryQuantity + delta) > MAX_STOCK) throw outOfRange(existing.inventoryQuantity);
  throw insufficient(Math.max(existing.inventoryQuantity, 0));
}

/**
 * Adds `delta` (negative to take stock) in ONE statement: the row lock taken by the UPDATE
 * serialises concurrent callers, and the WHERE refuses to take a `deny` variant below zero, so no
 * interleaving can oversell. The ledger row is written in the caller's transaction.
 */
export async function adjustInventory(trx: Transaction, storeId: string, variantId: string, delta: number, change: InventoryChange = {}): Promise<InventoryResult> {
  const query = trx('productVariants')
    .where({ id: variantId, storeId })
    .whereNull('archivedAt')
    .where((q) => q.where({ inventoryPolicy: 'continue' }).orWhereRaw('inventory_quantity::bigint + ? >= 0', [delta]))
    .whereRaw('abs(inventory_quantity::bigint + ?) <= ?', [delta, MAX_STOCK])
    .update({ inventoryQuantity: trx.raw('inventory_quantity + ?', [delta]), updatedAt: trx.fn.now() })
    .returning('*');
  if (change.productId) query.where({ productId: change.productId });
  const [variant] = (await query) as VariantRow[];
  if (!variant) return explainMiss(trx, storeId, variantId, change, delta);
  const adjustment = delta === 0 ? null : await writeLedger(trx, storeId, variant, delta, change);
  const { after: reserved } = await lockStockHolds(trx, storeId, variantId, null);
  return { variant, adjustment, reserved };
}

/**
 * A stock count: sets what the store has on hand, the units in open checkouts included (they are
 * still on the shelf), so `inventory_quantity` (what can still be sold) becomes the count less
 * those holds, and a hold that later expires gives its units back onto the count, never onto an
 * older figure. A count below what checkouts hold shortens the newest holds of a `deny` variant
 * (its stock never goes below zero; lockStockHolds); a `continue` variant goes below zero instead.
 * The variant row is locked in its own statement first (the lock order of every stock move:
 * variant, then holds), so the holds read next are the committed ones; the lock is the one an
 * UPDATE takes (FOR NO KEY UPDATE), so a confirm holding a hold can still insert order items
 * that reference the variant (their foreign key check only shares the key) and finish. The ledger records the
 * change of inventory_quantity whenever the count differs from what was on hand. `policy` sets
 * the policy in the same write (a product update changing both).
 */
export async function setInventory(
  trx: Transaction,
  storeId: string,
  variantId: string,
  quantity: number,
  change: InventoryChange & { policy?: InventoryPolicy } = {}
): Promise<InventoryResult> {
  const query = trx('productVariants').where({ id: variantId, storeId }).whereNull('archivedAt').forNoKeyUpdate();
  if (change.productId) query.where({ productId: change.productId });
  const locked = (await query.first('id', 'inventoryQuantity', 'inventoryPolicy')) as Pick<VariantRow, 'id' | 'inventoryQuantity' | 'inventoryPolicy'> | undefined;
  if (!locked) return explainMiss(trx, storeId, variantId, change);
  const policy = change.policy ?? locked.inventoryPolicy;
  const held = await lockStockHolds(trx, storeId, variantId, policy === 'deny' ? quantity : null);
  const available = quantity - held.after;
  if (Math.abs(available) > MAX_STOCK) throw outOfRange(locked.inventoryQuantity);
  const [variant] = (await trx('productVariants')
    .where({ storeId, id: variantId })
    .update({ inventoryQuantity: available, inventoryPolicy: policy, updatedAt: trx.fn.now() })
    .returning('*')) as VariantRow[];
  const counted = quantity !== locked.inventoryQuantity + held.before;
  const adjustment = counted ? await writeLedger(trx, storeId, variant!, available - locked.inventoryQuantity, change) : null;
  return { variant: variant!, adjustment, reserved: held.after };
}

/**
 * The admin's stock change: a delta or a count, with its ledger row, and an `inventory.changed`
 * event once committed (the storefront stops showing the old stock).
 */
export async function changeInventory(
  ctx: AppContext,
  storeId: string,
  variantId: string,
  change: InventoryChange & ({ delta: number } | { quantity: number })
): Promise<InventoryResult> {
  return withTransaction(ctx, async (trx, emit) => {
    const result = 'delta' in change ? await adjustInventory(trx, storeId, variantId, change.delta, change) : await setInventory(trx, storeId, variantId, change.quantity, change);
    if (result.adjustment) emit({ type: 'inventory.changed', storeId, variantIds: [variantId] });
    return result;
  });
}

/**
 * Units coming back (an order cancelled, refunded with restock, or returned): each variant's
 * stock grows by its units, onto the stock as it is now (whatever was counted or sold since
 * stands), with a ledger row; variants are locked in id order (the lock order of every stock
 * move), so a caller that needs them locked before its own rows calls this first. A deleted
 * variant is skipped. Returns the variants whose availability came back (for `inventory.changed`).
 */
export async function restockUnits(trx: Transaction, storeId: string, units: Map<string, number>, change: InventoryChange): Promise<string[]> {
  const variantIds = [...units.keys()].filter((variantId) => (units.get(variantId) ?? 0) > 0).sort();
  const backInStock: string[] = [];
  const ledger: Record<string, unknown>[] = [];
  for (const variantId of variantIds) {
    const quantity = units.get(variantId)!;
    const result = await trx.raw(
      'update product_variants set inventory_quantity = inventory_quantity + ?, updated_at = now() where id = ? and store_id = ? returning inventory_quantity, inventory_policy',
      [quantity, variantId, storeId]
    );
    const row = result.rows[0] as { inventoryQuantity: number; inventoryPolicy: InventoryPolicy } | undefined;
    if (!row) continue;
    if (row.inventoryPolicy === 'deny' && row.inventoryQuantity - quantity <= 0 && row.inventoryQuantity > 0) backInStock.push(variantId);
    ledger.push({ storeId, variantId, delta: quantity, quantityAfter: row.inventoryQuantity, ...ledgerColumns(change) });
  }
  if (ledger.length) await trx('inventoryLedger').insert(ledger);
  return backInStock;
}

/** Locks these variants (id order), before a caller's own rows: the lock order of every stock move. */
export async function lockVariants(trx: Transaction, storeId: string, variantIds: string[]): Promise<void> {
  if (variantIds.length) await trx.raw('select id from product_variants where id = any(?::uuid[]) and store_id = ? order by id for update', [[...variantIds].sort(), storeId]);
}

/**
 * Units leaving the shelf for an order made by hand (a draft completed, lines added by an edit or
 * an exchange): each variant's stock goes down by one conditional UPDATE (a `deny` variant never
 * goes below zero) with its ledger row in the same statement, variants in id order (the lock order
 * of every stock move). A line whose stock is not there, or whose variant is gone, is a
 * 409 `insufficient_inventory` naming it. Returns the variants this sold out (for `inventory.changed`).
 */
export async function takeUnits(trx: Transaction, storeId: string, lines: Array<{ variantId: string; quantity: number; title: string }>, change: InventoryChange): Promise<string[]> {
  const merged = new Map<string, { quantity: number; title: string }>();
  for (const line of lines) {
    if (line.quantity <= 0) continue;
    const entry = merged.get(line.variantId);
    merged.set(line.variantId, { quantity: (entry?.quantity ?? 0) + line.quantity, title: entry?.title ?? line.title });
  }
  const soldOut: string[] = [];
  const ledger = ledgerColumns({ ...change, code: change.code ?? 'sale' });
  // Id order, one variant a statement: the lock order of every stock move. Each statement takes the
  // units and writes their ledger row at once (adjustInventory's two writes; the checkout holds it
  // would also read are not needed here), and refuses, by its WHERE under the row lock, to take a
  // `deny` variant below zero: no interleaving oversells.
  for (const variantId of [...merged.keys()].sort()) {
    const { quantity, title } = merged.get(variantId)!;
    const result = await trx.raw(
      `with v as (
         update product_variants set inventory_quantity = inventory_quantity - :quantity, updated_at = now()
          where id = :variantId and store_id = :storeId and archived_at is null
            and (inventory_policy = 'continue' or inventory_quantity::bigint - :quantity >= 0)
            and abs(inventory_quantity::bigint - :quantity) <= :max
          returning id, inventory_quantity, inventory_policy
       ), l as (
         insert into inventory_ledger (store_id, variant_id, delta, quantity_after, user_id, reason, reason_code, actor, order_id, job_id)
         select :storeId, v.id, -(:quantity)::int, v.inventory_quantity, :userId, :reason, :reasonCode, :actor, :orderId, :jobId from v returning 1
       )
       select inventory_quantity, inventory_policy from v`,
      { quantity, variantId, storeId, max: MAX_STOCK, ...ledger }
    );
    const variant = result.rows[0] as { inventoryQuantity: number; inventoryPolicy: InventoryPolicy } | undefined;
    if (!variant) {
      const existing = (await trx('productVariants').where({ storeId, id: variantId }).whereNull('archivedAt').first('inventoryQuantity')) as { inventoryQuantity: number } | undefined;
      const message = existing ? `only ${Math.max(0, existing.inventoryQuantity)} left of ${title}` : `${title} is no longer sold`;
      throw conflict('insufficient_inventory', `Not enough stock for ${title}`, [{ path: `lines.${variantId}`, message }]);
    }
    if (variant.inventoryPolicy === 'deny' && variant.inventoryQuantity + quantity > 0 && variant.inventoryQuantity <= 0) soldOut.push(variantId);
  }
  return soldOut;
}
