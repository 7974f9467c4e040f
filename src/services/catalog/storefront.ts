import type { AppContext } from '../../context.js';
import { containsPattern } from '../../db/like-patterns.js';
import { notFound, validationFailed } from '../../errors.js';
import { decodeCursor, encodeCursor, type CursorKind, type PageRequest } from '../../platform/pagination.js';
import { mediaUrl } from './media.js';
import { queryPrepared } from '../../db/prepared-statements.js';
import { IN_STOCK_SQL } from './product-rows.js';
import { readCatalog } from './replica-routing.js';
import { storefrontSearchTerms } from './search-terms.js';

/**
 * Storefront catalog reads, built in PostgreSQL. Every product keeps its storefront JSON document
 * (storefront_products, maintained by triggers: migrations/20261123006200_storefront_documents.ts);
 * a read selects the page's ids through the products indexes, joins their documents with
 * string_agg and computes the next cursor in the same statement. Node never parses the text: it
 * goes into the envelope as it comes (`data` below is JSON text). Uncached: the storefront routes
 * cache the serialised responses (storefront-cache.ts). Each read runs on the read replica when
 * one is in use and current for the store, else on the primary (replica-routing.ts).
 */
export interface StorefrontJson {
  /** The JSON text of the envelope's `data`. */
  data: string;
  nextCursor: string | null;
}

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

/** The search query; one `?` takes `storefrontSearchTerms(q)` (prefix terms: `swea` finds "Sweaters"). */
export const STOREFRONT_TSQUERY = `to_tsquery('english', ?)`;
const TSQUERY = STOREFRONT_TSQUERY;

/**
 * Relevance search reads its query from a one-row subquery (`tsq.query`; `offset 0` keeps PostgreSQL
 * from inlining it), so the statement can be prepared: the rank is then one expression, computed
 * once per matching row and sorted once, whatever the plan, and the query is parsed (stemmed) once
 * per execution. A relevance page needs every match ranked, so its plan (the GIN index, then a
 * sort) does not depend on the terms; planning it cost about a third of the search.
 */
const RANKED_FROM = `, (select ${TSQUERY} as query offset 0) tsq`;

/**
 * Each sort is backed by an index on (store_id, status, key, id) (relevance: the GIN search index
 * narrows the rows first), and pages with a keyset on (key, id): deep pages cost what page 1 costs.
 */
function sortSpec(sort: StorefrontSort, terms?: string): SortSpec {
  switch (sort) {
    case 'price_asc':
      return { key: 'p.min_price', bindings: [], direction: 'asc', cast: 'integer', kind: 'integer' };
    case 'price_desc':
      return { key: 'p.min_price', bindings: [], direction: 'desc', cast: 'integer', kind: 'integer' };
    case 'title':
      return { key: 'lower(p.title)', bindings: [], direction: 'asc', cast: 'text', kind: 'string' };
    case 'relevance':
      return terms === undefined
        ? { key: 'ts_rank(p.search, tsq.query)', bindings: [], direction: 'desc', cast: 'real', kind: 'number' }
        : { key: `ts_rank(p.search, ${TSQUERY})`, bindings: [terms], direction: 'desc', cast: 'real', kind: 'number' };
    default:
      return { key: 'p.created_at', bindings: [], direction: 'desc', cast: 'timestamptz', kind: 'timestamp' };
  }
}

const cursorValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** What replaces the U+0001 marker in documents: the media URL prefix, as JSON string content. */
const mediaUrlPrefix = (ctx: AppContext) => JSON.stringify(mediaUrl(ctx, '')).slice(1, -1);

/** SQL text with its bindings, in order: each `?` added becomes the next `$n`. */
class Sql {
  text = '';
  readonly bindings: unknown[] = [];
  add(text: string, ...bindings: unknown[]): this {
    const parts = text.split('?');
    if (parts.length - 1 !== bindings.length) throw new Error(`storefront SQL: ${parts.length - 1} placeholders for ${bindings.length} bindings`);
    this.text += parts.reduce((sql, part, i) => `${sql}$${this.bindings.length + i}${part}`);
    this.bindings.push(...bindings);
    return this;
  }
}

interface PageRow {
  items: string;
  fetched: string | number;
  last_key: unknown;
  last_id: string | null;
}

/**
 * The most rows any page query reads: the largest page (100) plus the one that tells whether there is
 * more. It is written into the SQL as a literal LIMIT under the page's own `LIMIT ?`: PostgreSQL
 * estimates a parameter LIMIT at 10% of the table, so with only `LIMIT ?` the generic plan of a
 * prepared page query costs more than any custom plan (a hash join over every document), and the
 * plan cache re-plans every execution (planning cost about as much as executing). With the literal
 * bound the generic plan is the custom plan, PostgreSQL keeps it, and the rows are still read only
 * as far as the page needs (the inner LIMIT is a bound, the outer one stops the scan).
 */
const PAGE_ROW_BOUND = 101;

/** `limit ?` of a page query (limit + 1 rows) under the literal row bound; see PAGE_ROW_BOUND. */
function pageBound(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`storefront page limit must be a positive integer, got ${limit}`);
  return ` limit ${Math.max(PAGE_ROW_BOUND, limit + 1)}`;
}

/**
 * The page's items joined in order, how many rows the page query fetched, and the last item's key
 * (the row at position `limit`: only read when there is a next page, so that row exists). One
 * ordered aggregate: the other two pick a single row each and need no sort.
 */
const PAGE_SELECT = (documents: string) =>
  `select replace(coalesce(string_agg(${documents}, ',' order by page.n) filter (where page.n <= ?), ''), chr(1), ?) as items,
          count(*) as fetched,
          (array_agg(page.sort_key) filter (where page.n = ?))[1] as last_key,
          (array_agg(page.id) filter (where page.n = ?))[1] as last_id`;

export async function listStorefrontProducts(ctx: AppContext, storeId: string, filters: StorefrontProductFilters, page: PageRequest): Promise<StorefrontJson> {
  const sort: StorefrontSort = filters.sort ?? (filters.q ? 'relevance' : 'newest');
  if (sort === 'relevance' && !filters.q) throw validationFailed([{ path: 'sort', message: 'relevance needs a search query (q)' }]);
  const terms = filters.q ? storefrontSearchTerms(filters.q) : undefined;
  const valueFilters = Boolean(filters.tag) || filters.minPrice !== undefined || filters.maxPrice !== undefined;
  // Relevance reads the query from `tsq` (RANKED_FROM) unless another filter's selectivity weighs
  // against the terms' (a tag, a price range, a collection: join order, which index first), which
  // then need to be inline, where the planner can estimate them.
  const ranked = sort === 'relevance' && !valueFilters && !filters.collection;
  const spec = sortSpec(sort, ranked ? undefined : terms);
  const order = `${spec.key} ${spec.direction}, p.id ${spec.direction}`;

  // A relevance search visits a row per match: it reads the narrow search rows (id, store_id and
  // search of active products; migrations/20261123006400_storefront_search.ts) unless a tag or price
  // filter needs the products columns.
  const searchRows = sort === 'relevance' && !valueFilters;
  // The row numbers are taken over the page's bounded rows (q), not over every match: numbered in
  // the inner query, a relevance search sorted all its matches in full (a window function needs
  // them all) instead of keeping only the best (a bounded top-N sort under the LIMIT).
  const sql = new Sql()
    .add(`with page as (select q.*, row_number() over (order by q.sort_key ${spec.direction}, q.id ${spec.direction}) as n from (select p.id, ${spec.key} as sort_key`, ...spec.bindings)
    .add(` from ${searchRows ? 'storefront_search' : 'products'} p${ranked ? RANKED_FROM : ''}`, ...(ranked ? [terms] : []))
    .add(searchRows ? ' where p.store_id = ?' : ` where p.store_id = ? and p.status = 'active'`, storeId);
  if (filters.collection) {
    // An unknown or unpublished collection makes the subquery NULL: an empty list, as before.
    sql.add(
      ` and p.id in (select cp.product_id from collection_products cp where cp.collection_id =
          (select c.id from collections c where c.store_id = ? and c.is_published and lower(c.slug) = lower(?)))`,
      storeId,
      filters.collection
    );
  }
  // The search rows' index is per store (migrations/20261130020000_storefront_search_store_keys.ts):
  // it is asked for the store's keys, so a search never reads another store's matches.
  if (ranked) sql.add(' and storefront_search_key(p.search, p.store_id) @@ storefront_search_key_query(tsq.query, ?)', storeId);
  else if (terms !== undefined && searchRows) sql.add(` and storefront_search_key(p.search, p.store_id) @@ storefront_search_key_query(${TSQUERY}, ?)`, terms, storeId);
  else if (terms !== undefined) sql.add(` and p.search @@ ${TSQUERY}`, terms);
  if (filters.tag) sql.add(' and p.tags @> array[?]::text[]', filters.tag);
  if (filters.minPrice !== undefined) sql.add(' and p.min_price >= ?', filters.minPrice);
  if (filters.maxPrice !== undefined) sql.add(' and p.min_price <= ?', filters.maxPrice);
  if (filters.inStock !== undefined) sql.add(` and ${filters.inStock ? IN_STOCK_SQL('p') : `not ${IN_STOCK_SQL('p')}`}`);
  if (page.cursor) {
    const [, value, id] = decodeCursor(page.cursor, [{ literal: sort }, spec.kind, 'uuid']);
    sql.add(` and (${spec.key}, p.id) ${spec.direction === 'desc' ? '<' : '>'} (?::${spec.cast}, ?::uuid)`, ...spec.bindings, value, id);
  }
  sql
    .add(` order by ${order}${pageBound(page.limit)}) q order by q.sort_key ${spec.direction}, q.id ${spec.direction} limit ?)`, ...spec.bindings, page.limit + 1)
    .add(` ${PAGE_SELECT('d.document')} from page join storefront_products d on d.product_id = page.id and d.store_id = ?`, page.limit, mediaUrlPrefix(ctx), page.limit, page.limit, storeId);

  // Prepared (one plan kept per connection) unless the best plan depends on the values: search
  // terms inline (under another sort a common term wants the sort's index, a rare one the GIN
  // index), a tag, a price range (a narrow range wants the price index, a wide one the sort's).
  const planStable = (!filters.q || ranked) && !valueFilters;
  const [row] = await readCatalog(ctx, storeId, (db) => queryPrepared<PageRow>(db, sql.text, sql.bindings, planStable));
  const hasMore = Number(row!.fetched) > page.limit;
  return {
    data: `{"products":[${row!.items}]}`,
    nextCursor: hasMore && row!.last_id ? encodeCursor([sort, cursorValue(row!.last_key), row!.last_id]) : null
  };
}

export async function getStorefrontProduct(ctx: AppContext, storeId: string, slug: string): Promise<StorefrontJson> {
  const [row] = await readCatalog(ctx, storeId, (db) =>
    queryPrepared<{ document: string }>(
      db,
      `select replace(d.document, chr(1), $1) as document
         from products p join storefront_products d on d.product_id = p.id
        where p.store_id = $2 and p.status = 'active' and lower(p.slug) = lower($3)`,
      [mediaUrlPrefix(ctx), storeId, slug],
      true
    )
  );
  if (!row) throw notFound('Product');
  return { data: `{"product":${row.document}}`, nextCursor: null };
}

/** A collection's storefront JSON on alias `c` (its image on alias `m`), without the closing brace. */
const COLLECTION_JSON_OPEN = `'{"id":"' || c.id || '","title":' || to_json(c.title)::text || ',"slug":' || to_json(c.slug)::text
  || ',"description":' || to_json(c.description)::text
  || ',"image":' || coalesce('{"id":"' || m.id || '","url":"' || chr(1) || m.id || '","alt":' || coalesce(to_json(m.alt)::text, 'null')
       || ',"width":' || coalesce(m.width::text, 'null') || ',"height":' || coalesce(m.height::text, 'null') || '}', 'null')
  || ',"createdAt":' || storefront_timestamp(c.created_at) || ',"updatedAt":' || storefront_timestamp(c.updated_at)`;

/** Published collections, newest first. */
export async function listStorefrontCollections(ctx: AppContext, storeId: string, page: PageRequest, q?: string): Promise<StorefrontJson> {
  const sql = new Sql().add(
    `with page as (select * from (select c.id, c.created_at as sort_key, ${COLLECTION_JSON_OPEN} || '}' as json,
            row_number() over (order by c.created_at desc, c.id desc) as n
       from collections c left join media m on m.id = c.media_id
      where c.store_id = ? and c.is_published`,
    storeId
  );
  if (q) sql.add(' and lower(c.title) like ?', containsPattern(q));
  if (page.cursor) {
    const [value, id] = decodeCursor(page.cursor, ['timestamp', 'uuid']);
    sql.add(' and (c.created_at, c.id) < (?::timestamptz, ?::uuid)', value, id);
  }
  sql
    .add(` order by c.created_at desc, c.id desc${pageBound(page.limit)}) q order by q.sort_key desc, q.id desc limit ?)`, page.limit + 1)
    .add(` ${PAGE_SELECT('page.json')} from page`, page.limit, mediaUrlPrefix(ctx), page.limit, page.limit);
  const [row] = await readCatalog(ctx, storeId, (db) => queryPrepared<PageRow>(db, sql.text, sql.bindings, true));
  const hasMore = Number(row!.fetched) > page.limit;
  return {
    data: `{"collections":[${row!.items}]}`,
    nextCursor: hasMore && row!.last_id ? encodeCursor([cursorValue(row!.last_key), row!.last_id]) : null
  };
}

/** A published collection with a page of its active products, in the collection's order. */
export async function getStorefrontCollection(ctx: AppContext, storeId: string, slug: string, page: PageRequest): Promise<StorefrontJson> {
  const sql = new Sql().add(
    `with c as (select c.id, ${COLLECTION_JSON_OPEN} as json
                  from collections c left join media m on m.id = c.media_id
                 where c.store_id = ? and c.is_published and lower(c.slug) = lower(?)),
          page as (select * from (select cp.product_id as id, cp.position as sort_key, row_number() over (order by cp.position, cp.product_id) as n
                     from collection_products cp join products p on p.id = cp.product_id
                    where cp.collection_id = (select c.id from c) and p.store_id = ? and p.status = 'active'`,
    storeId,
    slug,
    storeId
  );
  if (page.cursor) {
    const [position, id] = decodeCursor(page.cursor, ['integer', 'uuid']);
    sql.add(' and (cp.position, cp.product_id) > (?::integer, ?::uuid)', position, id);
  }
  sql.add(
    ` order by cp.position, cp.product_id${pageBound(page.limit)}) q order by q.sort_key, q.id limit ?)
      select replace(c.json, chr(1), ?) as json, p.* from c cross join lateral (${PAGE_SELECT('d.document')} from page join storefront_products d on d.product_id = page.id) p`,
    page.limit + 1,
    mediaUrlPrefix(ctx),
    page.limit,
    mediaUrlPrefix(ctx),
    page.limit,
    page.limit
  );
  const [row] = await readCatalog(ctx, storeId, (db) => queryPrepared<PageRow & { json: string }>(db, sql.text, sql.bindings, true));
  if (!row) throw notFound('Collection');
  const hasMore = Number(row.fetched) > page.limit;
  return {
    data: `{"collection":${row.json},"products":[${row.items}]}}`,
    nextCursor: hasMore && row.last_id ? encodeCursor([row.last_key, row.last_id]) : null
  };
}
