import { escapeLike } from '../../db/like-patterns.js';
import { uniqueViolation } from '../../errors.js';
import type { Sql, Transaction } from '../../db/transaction.js';

/** "Crème Brûlée — 500 g!" → "creme-brulee-500-g". Never empty: falls back to `fallback`. */
export function slugify(text: string, fallback = 'item'): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/**
 * A free slug for `base` in a store's table: `base`, else `base-N` one past the highest number in
 * use. One row comes back however many `base-N` exist (the search is an aggregate in PostgreSQL).
 */
export async function nextFreeSlug(db: Sql, table: 'products' | 'collections', storeId: string, base: string): Promise<string> {
  // `base` comes from slugify ([a-z0-9-]), so it is safe inside the pattern.
  const result = await db.raw(
    `select bool_or(lower(slug) = ?) as base_taken,
            max((substring(lower(slug) from ?))::int) as highest
       from ?? where store_id = ? and (lower(slug) = ? or lower(slug) like ?)`,
    [base, `^${base}-([0-9]{1,9})$`, table, storeId, base, `${escapeLike(base)}-%`]
  );
  const row = result.rows[0] as { baseTaken: boolean | null; highest: number | null };
  if (!row.baseTaken) return base;
  return `${base}-${Math.max(row.highest ?? 1, 1) + 1}`;
}

export interface SlugInsert<Row> {
  table: 'products' | 'collections';
  storeId: string;
  /** The slug the client asked for: a clash is the client's conflict (`taken`), not retried. */
  explicitSlug: string | undefined;
  /** What the slug is derived from when none is given, and the fallback for an empty result. */
  title: string;
  fallback: string;
  taken: () => Error;
  insert: (savepoint: Transaction, slug: string) => Promise<Row>;
}

/**
 * Inserts under the given slug, or under the next free derived one. Derived slugs are chosen under a
 * transaction-scoped advisory lock on (table, store, base): concurrent creates of one title take
 * turns, each seeing the slug the previous one committed, instead of all computing the same "next
 * free" slug. A clash that still happens (an explicit slug, a rename) retries in a savepoint.
 */
export async function insertWithSlug<Row>(trx: Transaction, spec: SlugInsert<Row>): Promise<Row> {
  if (!spec.explicitSlug) {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`slug:${spec.table}:${spec.storeId}:${slugify(spec.title, spec.fallback)}`]);
  }
  for (let attempt = 0; ; attempt++) {
    const slug = spec.explicitSlug ?? (await nextFreeSlug(trx, spec.table, spec.storeId, slugify(spec.title, spec.fallback)));
    try {
      return await trx.savepoint((savepoint) => spec.insert(savepoint, slug));
    } catch (error) {
      if (uniqueViolation(error) !== `${spec.table}_store_slug_key`) throw error;
      if (spec.explicitSlug || attempt >= 5) throw spec.taken();
    }
  }
}
