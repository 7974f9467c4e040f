import type { AppContext } from '../../src/context.js';
import { successBody } from '../../src/api/plugins/envelope.js';
import { findPublishedCollection, storefrontCollectionDto } from '../../src/services/catalog/collections.js';
import { hydrateProducts, IN_STOCK_SQL, productColumns, STOREFRONT_VARIANT_COLUMNS, toStorefrontProductDto, type ProductRow } from '../../src/services/catalog/product-rows.js';
import { toMediaDto, type MediaRow } from '../../src/services/catalog/media.js';
import { storefrontSearchTerms } from '../../src/services/catalog/search-terms.js';
import { STOREFRONT_TSQUERY, type StorefrontProductFilters, type StorefrontSort } from '../../src/services/catalog/storefront.js';
import { decodeCursor, encodeCursor, keysetPage, paginationMeta, type PageRequest } from '../../src/platform/pagination.js';

/**
 * The storefront reads as they were built before the SQL-built documents (row queries, hydration
 * and DTOs in Node, JSON.stringify of the envelope), kept verbatim as the reference the new path
 * must reproduce byte for byte. Returns the envelope text, or null where the route answers 404.
 */

function sortSpec(sort: StorefrontSort, q: string | undefined) {
  switch (sort) {
    case 'price_asc':
      return { key: 'p.min_price', bindings: [] as string[], direction: 'asc', cast: 'integer', kind: 'integer' as const };
    case 'price_desc':
      return { key: 'p.min_price', bindings: [] as string[], direction: 'desc', cast: 'integer', kind: 'integer' as const };
    case 'title':
      return { key: 'lower(p.title)', bindings: [] as string[], direction: 'asc', cast: 'text', kind: 'string' as const };
    case 'relevance':
      return { key: `ts_rank(p.search, ${STOREFRONT_TSQUERY})`, bindings: [storefrontSearchTerms(q ?? '')], direction: 'desc', cast: 'real', kind: 'number' as const };
    default:
      return { key: 'p.created_at', bindings: [] as string[], direction: 'desc', cast: 'timestamptz', kind: 'timestamp' as const };
  }
}

const cursorValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
const envelope = (data: unknown, meta: Record<string, unknown>) => JSON.stringify(successBody(data, meta));

export async function referenceProductList(ctx: AppContext, storeId: string, filters: StorefrontProductFilters, page: PageRequest): Promise<string> {
  const sort: StorefrontSort = filters.sort ?? (filters.q ? 'relevance' : 'newest');
  const spec = sortSpec(sort, filters.q);
  const db = ctx.db;
  const query = db('products as p')
    .where({ 'p.storeId': storeId, 'p.status': 'active' })
    .select([...productColumns('p'), db.raw(`${spec.key} as sort_key`, spec.bindings)]);
  if (filters.collection) {
    const collection = await findPublishedCollection(ctx, storeId, filters.collection).catch(() => null);
    if (!collection) return envelope({ products: [] }, paginationMeta(page.limit, null));
    query.whereRaw('exists (select 1 from collection_products cp where cp.collection_id = ? and cp.product_id = p.id)', [collection.id]);
  }
  if (filters.q) query.whereRaw(`p.search @@ ${STOREFRONT_TSQUERY}`, [storefrontSearchTerms(filters.q)]);
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
  const products = await hydrateProducts(ctx, storeId, items, toStorefrontProductDto, STOREFRONT_VARIANT_COLUMNS);
  return envelope({ products }, paginationMeta(page.limit, nextCursor));
}

export async function referenceProduct(ctx: AppContext, storeId: string, slug: string): Promise<string | null> {
  const row: ProductRow | undefined = await ctx.db('products').where({ storeId, status: 'active' }).whereRaw('lower(slug) = lower(?)', [slug]).first(productColumns());
  if (!row) return null;
  const [product] = await hydrateProducts(ctx, storeId, [row], toStorefrontProductDto, STOREFRONT_VARIANT_COLUMNS);
  return envelope({ product }, {});
}

export async function referenceCollectionList(ctx: AppContext, storeId: string, page: PageRequest): Promise<string> {
  const result = await keysetPage<any>(ctx.db('collections').where({ storeId, isPublished: true }), { column: 'createdAt', direction: 'desc' }, page);
  const mediaIds = result.items.map((row) => row.mediaId).filter(Boolean);
  const media: MediaRow[] = mediaIds.length ? await ctx.db('media').whereIn('id', mediaIds) : [];
  const byId = new Map(media.map((m) => [m.id, m]));
  const collections = result.items.map((row) => {
    const image = row.mediaId ? byId.get(row.mediaId) : undefined;
    const dto = image ? toMediaDto(ctx, image) : null;
    return {
      id: row.id,
      title: row.title,
      slug: row.slug,
      description: row.description,
      image: dto ? { id: dto.id, url: dto.url, alt: dto.alt, width: dto.width, height: dto.height } : null,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt
    };
  });
  return envelope({ collections }, paginationMeta(page.limit, result.nextCursor));
}

export async function referenceCollection(ctx: AppContext, storeId: string, slug: string, page: PageRequest): Promise<string | null> {
  const collection = await findPublishedCollection(ctx, storeId, slug).catch(() => null);
  if (!collection) return null;
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
  const [dto, products] = await Promise.all([storefrontCollectionDto(ctx, collection), hydrateProducts(ctx, storeId, items, toStorefrontProductDto, STOREFRONT_VARIANT_COLUMNS)]);
  return envelope({ collection: { ...dto, products } }, paginationMeta(page.limit, hasMore && last ? encodeCursor([last.position, last.id]) : null));
}
