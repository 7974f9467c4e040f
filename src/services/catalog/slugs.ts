import type { Knex } from 'knex';

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
  const escaped = base.replace(/[\\%_]/g, (c) => `\\${c}`);
  const rows: Array<{ slug: string }> = await db(table)
    .where({ storeId })
    .where((q) => q.whereRaw('lower(slug) = ?', [base]).orWhereRaw('lower(slug) like ?', [`${escaped}-%`]))
    .select('slug');
  const taken = new Set(rows.map((row) => row.slug.toLowerCase()));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
