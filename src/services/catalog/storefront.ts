import type { AppContext } from '../../context.js';
import { notFound, validationFailed } from '../../errors.js';
import { decodeCursor, encodeCursor, type CursorKind, type PageRequest } from '../pagination.js';
import { findPublishedCollection, storefrontCollectionDto } from './collections.js';
import { hydrateProducts, IN_STOCK_SQL, productColumns, STOREFRONT_VARIANT_COLUMNS, toStorefrontProductDto, type ProductRow } from './read-models.js';

export const STOREFRONT_SORTS = ['newest', 'price_asc', 'price_desc', 'title', 'relevance'] as const;
export type StorefrontSort = (typeof STOREFRONT_SORTS)[number];

export interface StorefrontProductFilters {
  q?: string;
  collection?: string;
  tag?: string;
  minPrice?: number;
  maxPrice?: number;
  inStock?: boolean;
  sort?: StorefrontSort;
}

interface SortSpec {
  /** SQL expression on alias `p`; `?` placeholders take `bindings`. */
  key: string;
  bindings: string[];
  direction: 'asc' | 'desc';
  cast: string;
  kind: CursorKind;
}

/**
 * Search as you type, with web-search syntax: every plain word is a prefix term (`swea` finds
 * "Sweaters"), all required; `"a phrase"` matches exactly, `-word` excludes, `or` between terms
 * offers alternatives. Words are reduced to letters and digits and quoted, so `to_tsquery` never
 * sees syntax from the client.
 */
const TSQUERY = `to_tsquery('english', ?)`;
const MAX_TERMS = 10;

export function prefixTsquery(q: string): string {
  const parts: string[] = [];
  let pendingOr = false;
  for (const match of q.normalize('NFKC').toLowerCase().matchAll(/(-?)"([^"]*)"?|(-?)([\p{L}\p{N}]+)/gu)) {
    let term: string;
    let negate: boolean;
    if (match[2] !== undefined) {
      const words = match[2].match(/[\p{L}\p{N}]+/gu) ?? [];
      if (!words.length) continue;
      term = words.length > 1 ? `(${words.map((w) => `'${w}'`).join(' <-> ')})` : `'${words[0]}'`;
      negate = match[1] === '-';
    } else {
      const word = match[4]!;
      if (word === 'or' && !match[3]) {
        pendingOr = parts.length > 0;
        continue;
      }
      term = `'${word}':*`;
      negate = match[3] === '-';
    }
    if (parts.length) parts.push(pendingOr ? '|' : '&');
    parts.push(negate ? `!${term}` : term);
    pendingOr = false;
    if (parts.length >= MAX_TERMS * 2 - 1) break;
  }
  return parts.join(' ');
}

/**
 * Each sort is backed by an index on (store_id, status, key, id) (relevance: the GIN search index
 * narrows the rows first), and pages with a keyset on (key, id): deep pages cost what page 1 costs.
 */
function sortSpec(sort: StorefrontSort, q: string | undefined): SortSpec {
  switch (sort) {
    case 'price_asc':
      return { key: 'p.min_price', bindings: [], direction: 'asc', cast: 'integer', kind: 'integer' };
    case 'price_desc':
      return { key: 'p.min_price', bindings: [], direction: 'desc', cast: 'integer', kind: 'integer' };
    case 'title':
      return { key: 'lower(p.title)', bindings: [], direction: 'asc', cast: 'text', kind: 'string' };
    case 'relevance':
      return { key: `ts_rank(p.search, ${TSQUERY})`, bindings: [prefixTsquery(q ?? '')], direction: 'desc', cast: 'real', kind: 'number' };
    default:
      return { key: 'p.created_at', bindings: [], direction: 'desc', cast: 'timestamptz', kind: 'timestamp' };
  }
}

const cursorValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** Uncached: the storefront routes cache the serialised responses (storefront-cache.ts). */
export async function listStorefrontProducts(ctx: AppContext, storeId: string, filters: StorefrontProductFilters, page: PageRequest) {
  const sort: StorefrontSort = filters.sort ?? (filters.q ? 'relevance' : 'newest');
  if (sort === 'relevance' && !filters.q) throw validationFailed([{ path: 'sort', message: 'relevance needs a search query (q)' }]);
  const spec = sortSpec(sort, filters.q);
  const db = ctx.db;
  const query = db('products as p')
    .where({ 'p.storeId': storeId, 'p.status': 'active' })
    .select([...productColumns('p'), db.raw(`${spec.key} as sort_key`, spec.bindings)]);

  if (filters.collection) {
    const collection = await findPublishedCollection(ctx, storeId, filters.collection).catch(() => null);
    if (!collection) return { products: [], nextCursor: null };
    query.whereRaw('exists (select 1 from collection_products cp where cp.collection_id = ? and cp.product_id = p.id)', [collection.id]);
  }
  if (filters.q) query.whereRaw(`p.search @@ ${TSQUERY}`, [prefixTsquery(filters.q)]);
  if (filters.tag) query.whereRaw('p.tags @> array[?]::text[]', [filters.tag]);
  if (filters.minPrice !== undefined) query.where('p.minPrice', '>=', filters.minPrice);
  if (filters.maxPrice !== undefined) query.where('p.minPrice', '<=', filters.maxPrice);
  if (filters.inStock !== undefined) query.whereRaw(filters.inStock ? IN_STOCK_SQL('p') : `not ${IN_STOCK_SQL('p')}`);

  const comparator = spec.direction === 'desc' ? '<' : '>';
  if (page.cursor) {
    const [, value, id] = decodeCursor(page.cursor, [{ literal: sort }, spec.kind, 'uuid']);
    query.whereRaw(`(${spec.key}, p.id) ${comparator} (?::${spec.cast}, ?::uuid)`, [...spec.bindings, value as string, id as string]);
  }
  query.orderByRaw(`${spec.key} ${spec.direction}, p.id ${spec.direction}`, spec.bindings).limit(page.limit + 1);

  const rows = (await query) as Array<ProductRow & { sortKey: unknown }>;
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const nextCursor = hasMore && last ? encodeCursor([sort, cursorValue(last.sortKey), last.id]) : null;
  return { products: await hydrateProducts(ctx, items, toStorefrontProductDto, STOREFRONT_VARIANT_COLUMNS), nextCursor };
}

export async function getStorefrontProduct(ctx: AppContext, storeId: string, slug: string) {
  const row: ProductRow | undefined = await ctx.db('products')
    .where({ storeId, status: 'active' })
    .whereRaw('lower(slug) = lower(?)', [slug])
    .first(productColumns());
  if (!row) throw notFound('Product');
  const [product] = await hydrateProducts(ctx, [row], toStorefrontProductDto, STOREFRONT_VARIANT_COLUMNS);
  return product!;
}

/** A published collection with a page of its active products, in the collection's order. */
export async function getStorefrontCollection(ctx: AppContext, storeId: string, slug: string, page: PageRequest) {
  const collection = await findPublishedCollection(ctx, storeId, slug);
  const query = ctx.db('collectionProducts as cp')
    .join('products as p', 'p.id', 'cp.productId')
    .where({ 'cp.collectionId': collection.id, 'p.storeId': storeId, 'p.status': 'active' })
    .select([...productColumns('p'), 'cp.position']);
  if (page.cursor) {
    const [position, id] = decodeCursor(page.cursor, ['integer', 'uuid']);
    query.whereRaw('(cp.position, p.id) > (?::integer, ?::uuid)', [position as number, id as string]);
  }
  const rows = (await query.orderBy([{ column: 'cp.position' }, { column: 'p.id' }]).limit(page.limit + 1)) as Array<ProductRow & { position: number }>;
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const [dto, products] = await Promise.all([storefrontCollectionDto(ctx, collection), hydrateProducts(ctx, items, toStorefrontProductDto, STOREFRONT_VARIANT_COLUMNS)]);
  return { collection: { ...dto, products }, nextCursor: hasMore && last ? encodeCursor([last.position, last.id]) : null };
}
