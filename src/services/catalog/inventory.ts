import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { transactionWithEvents } from '../events/domain-events.js';
import type { VariantRow } from './product-rows.js';

export interface InventoryChange {
  /** Who made the change (null for the storefront/checkout). */
  userId?: string | null;
  reason?: string | null;
  /** When given, the variant must belong to this product. */
  productId?: string;
}

export interface InventoryResult {
  variant: VariantRow;
  adjustment: { id: string; delta: number; reason: string | null; quantityAfter: number; createdAt: Date } | null;
}

type Db = Knex | Knex.Transaction;

/** Stock is kept within ±1e9 (what `{ quantity }` accepts): far inside the integer column, so sums never overflow. */
export const MAX_STOCK = 1_000_000_000;

const outOfRange = (current: number) =>
  conflict('conflict', `Stock would leave the range -${MAX_STOCK}..${MAX_STOCK}`, [{ path: 'delta', message: `${current} in stock; the result must stay within ±${MAX_STOCK}` }]);

const insufficient = (available: number) =>
  conflict('insufficient_inventory', 'Not enough stock for this change', [{ path: 'delta', message: `only ${available} in stock` }]);

function inTransaction<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return (db as Knex.Transaction).isTransaction ? work(db as Knex.Transaction) : (db as Knex).transaction(work);
}

async function writeLedger(trx: Knex.Transaction, storeId: string, variant: VariantRow, delta: number, change: InventoryChange) {
  const [row] = await trx('inventoryLedger')
    .insert({ storeId, variantId: variant.id, userId: change.userId ?? null, delta, reason: change.reason ?? null, quantityAfter: variant.inventoryQuantity })
    .returning(['id', 'delta', 'reason', 'quantityAfter', 'createdAt']);
  return row as NonNullable<InventoryResult['adjustment']>;
}

async function explainMiss(trx: Knex.Transaction, storeId: string, variantId: string, change: InventoryChange, delta = 0): Promise<never> {
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
 * interleaving can oversell. The ledger row is written in the same transaction. Pass a transaction
 * (checkout) to make it part of a larger unit of work.
 */
export async function adjustInventory(db: Db, storeId: string, variantId: string, delta: number, change: InventoryChange = {}): Promise<InventoryResult> {
  return inTransaction(db, async (trx) => {
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
    return { variant, adjustment };
  });
}

/** Sets the on-hand quantity (a stock count); the ledger records the difference. */
export async function setInventory(db: Db, storeId: string, variantId: string, quantity: number, change: InventoryChange = {}): Promise<InventoryResult> {
  return inTransaction(db, async (trx) => {
    const productFilter = change.productId ? 'and product_id = ?' : '';
    const bindings = [quantity, variantId, storeId, ...(change.productId ? [change.productId] : [])];
    // The sub-select locks the row and reads the quantity being replaced, in the same statement.
    const result = await trx.raw(
      `update product_variants v set inventory_quantity = ?, updated_at = now()
         from (select id, inventory_quantity as before from product_variants
                where id = ? and store_id = ? and archived_at is null ${productFilter} for update) old
        where v.id = old.id
        returning v.*, old.before`,
      bindings
    );
    const raw = result.rows[0] as Record<string, any> | undefined;
    if (!raw) return explainMiss(trx, storeId, variantId, change);
    const variant = (await trx('productVariants').where({ id: raw.id }).first()) as VariantRow;
    const delta = quantity - Number(raw.before);
    const adjustment = delta === 0 ? null : await writeLedger(trx, storeId, variant, delta, change);
    return { variant, adjustment };
  });
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
  return transactionWithEvents(ctx, async (trx, emit) => {
    const result = 'delta' in change ? await adjustInventory(trx, storeId, variantId, change.delta, change) : await setInventory(trx, storeId, variantId, change.quantity, change);
    if (result.adjustment) emit({ type: 'inventory.changed', storeId, variantIds: [variantId] });
    return result;
  });
}
