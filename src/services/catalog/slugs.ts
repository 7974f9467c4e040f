import type { Knex } from 'knex';
import { escapeLike } from '../../db/like-patterns.js';
import { uniqueViolation } from '../../errors.js';

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
 * The first free slug for `base` in a store's table: `base`, then `base-2`, `base-3`… Callers
 * still catch the unique violation (two creates can race) and retry.
 */
export async function nextFreeSlug(db: Knex | Knex.Transaction, table: 'products' | 'collections', storeId: string, base: string): Promise<string> {
  const rows: Array<{ slug: string }> = await db(table)
    .where({ storeId })
    .where((q) => q.whereRaw('lower(slug) = ?', [base]).orWhereRaw('lower(slug) like ?', [`${escapeLike(base)}-%`]))
    .select('slug');
  const taken = new Set(rows.map((row) => row.slug.toLowerCase()));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
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
  insert: (savepoint: Knex.Transaction, slug: string) => Promise<Row>;
}

/**
 * Inserts under the given slug, or under the next free derived one; when a concurrent insert takes
 * that slug first, the insert (in a savepoint) is retried with the next.
 */
export async function insertWithSlug<Row>(trx: Knex.Transaction, spec: SlugInsert<Row>): Promise<Row> {
  for (let attempt = 0; ; attempt++) {
    const slug = spec.explicitSlug ?? (await nextFreeSlug(trx, spec.table, spec.storeId, slugify(spec.title, spec.fallback)));
    try {
      return await trx.transaction((savepoint) => spec.insert(savepoint, slug));
    } catch (error) {
      if (uniqueViolation(error) !== `${spec.table}_store_slug_key`) throw error;
      if (spec.explicitSlug || attempt >= 5) throw spec.taken();
    }
  }
}
