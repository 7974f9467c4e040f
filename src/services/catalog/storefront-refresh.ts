import type { Transaction } from '../../db/transaction.js';

/**
 * Batch writers' storefront documents (migration 20261127010000). The catalog's triggers rebuild a
 * product's storefront document at the end of every statement that changes what it shows; a batch
 * of a CSV import writes products, then variants, then images, and would rebuild each document
 * three times. Inside `deferStorefrontRefresh` the triggers only note the products (in the
 * session's temp table), and `flushStorefrontRefresh` rebuilds each noted product once, in the same
 * transaction, before the commit: readers never see a document older than its rows.
 *
 * Bulk session settings go with it: `jit = off` (the batch's statements are many small plans; a
 * misestimate on a growing table made PostgreSQL compile them for seconds) and
 * `synchronous_commit = off` (a batch lost in a crash is lost together with its checkpoint, and the
 * retried job applies it again).
 */
const PENDING_TABLE = 'create temp table if not exists storefront_refresh_pending (product_id uuid primary key) on commit delete rows';

export async function deferStorefrontRefresh(trx: Transaction): Promise<void> {
  await trx.raw(
    `${PENDING_TABLE}; set local shopwright.storefront_refresh = 'deferred'; set local jit = off; set local synchronous_commit = off; set local statement_timeout = 300000`
  );
}

/** Rebuilds every document the batch's statements asked for, once; returns how many products. */
export async function flushStorefrontRefresh(trx: Transaction): Promise<number> {
  const result = (await trx.raw('select flush_storefront_refresh() as refreshed')) as { rows: Array<{ refreshed: number }> };
  return result.rows[0]?.refreshed ?? 0;
}

/** `work` with the storefront refresh deferred to its end (one rebuild per product), in the caller's transaction. */
export async function withDeferredStorefrontRefresh<T>(trx: Transaction, work: () => Promise<T>): Promise<T> {
  await deferStorefrontRefresh(trx);
  const value = await work();
  await flushStorefrontRefresh(trx);
  return value;
}
