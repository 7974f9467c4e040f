import type { Sql } from '../../db/transaction.js';

/**
 * Per-store order numbers from one PostgreSQL sequence per store, created with the store's first
 * order. `nextval` takes no lock that lives until commit, so concurrent checkouts of one store do
 * not queue behind each other's commit (a per-store counter row would, capping a store at one
 * order per WAL flush). Numbers are unique and increasing; a transaction that fails after drawing
 * one leaves a gap, as with every sequence.
 */
export const FIRST_ORDER_NUMBER = 1001;

const known = new Set<string>();

export const orderNumberSequence = (storeId: string) => `order_numbers_${storeId.replace(/-/g, '').toLowerCase()}`;

/** Creates the store's sequence if needed, outside any transaction (DDL locks must not wait for a checkout). */
export async function ensureOrderNumberSequence(db: Sql, storeId: string): Promise<string> {
  const name = orderNumberSequence(storeId);
  if (!/^order_numbers_[0-9a-f]{32}$/.test(name)) throw new Error(`bad store id for a sequence: ${storeId}`);
  if (known.has(name)) return name;
  try {
    await db.raw(`create sequence if not exists ${name} as integer start ${FIRST_ORDER_NUMBER}`);
  } catch (error) {
    // Two first orders at once: the other one created it (42P07 duplicate, or 23505 on pg_class).
    const code = (error as { code?: string }).code;
    if (code !== '42P07' && code !== '23505') throw error;
  }
  known.add(name);
  return name;
}
