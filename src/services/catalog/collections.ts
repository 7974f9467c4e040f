import type { AppContext } from '../../context.js';
import { containsPattern } from '../../db/like-patterns.js';
import { conflict, notFound, uniqueViolation, validationFailed } from '../../errors.js';
import { decodeCursor, encodeCursor, keysetPage, type PageRequest } from '../../platform/pagination.js';
import { assertStoreMedia, toMediaDto, type MediaRow } from './media.js';
import { insertWithSlug } from './slugs.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { recordAudit } from '../audit/index.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export interface CollectionInput {
  title?: string;
  slug?: string;
  description?: string;
  productIds?: string[];
  isPublished?: boolean;
  mediaId?: string | null;
}

export interface CollectionRow {
  id: string;
  storeId: string;
  title: string;
  slug: string;
  description: string;
  isPublished: boolean;
  mediaId: string | null;
  createdAt: Date;
  updatedAt: Date;
  productsCount?: number;
}

const slugTaken = () => conflict('slug_taken', 'A collection with this slug already exists', [{ path: 'slug', message: 'slug is taken' }]);

async function mediaById(db: Sql, storeId: string, ids: Array<string | null>): Promise<Map<string, MediaRow>> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (!wanted.length) return new Map();
  const rows: MediaRow[] = await db('media').where({ storeId }).whereIn('id', wanted);
  return new Map(rows.map((row) => [row.id, row]));
}

function toCollectionDto(ctx: AppContext, row: CollectionRow, media: Map<string, MediaRow>) {
  const image = row.mediaId ? media.get(row.mediaId) : undefined;
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    isPublished: row.isPublished,
    mediaId: row.mediaId,
    image: image ? toMediaDto(ctx, image) : null,
    productsCount: Number(row.productsCount ?? 0),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  };
}

const withProductsCount = (db: Sql) =>
  db.raw('(select count(*) from collection_products cp where cp.store_id = collections.store_id and cp.collection_id = collections.id) as products_count');

async function replaceMembership(trx: Transaction, storeId: string, collectionId: string, productIds: string[]) {
  if (productIds.length) {
    const rows: Array<{ id: string }> = await trx('products').where({ storeId }).whereIn('id', productIds).select('id');
    const found = new Set(rows.map((row) => row.id));
    const missing = productIds.findIndex((id) => !found.has(id));
    if (missing >= 0) throw validationFailed([{ path: `productIds.${missing}`, message: 'unknown product id' }]);
  }
  await trx('collectionProducts').where({ storeId, collectionId }).delete();
  if (productIds.length) await trx('collectionProducts').insert(productIds.map((productId, position) => ({ storeId, collectionId, productId, position })));
}

async function checkMedia(trx: Transaction, storeId: string, mediaId: string | null | undefined) {
  if (!mediaId) return;
  try {
    await assertStoreMedia(trx, storeId, [mediaId], 'mediaId');
  } catch {
    throw validationFailed([{ path: 'mediaId', message: 'unknown media id' }]);
  }
}

export async function listCollections(ctx: AppContext, storeId: string, filters: { q?: string; isPublished?: boolean }, page: PageRequest) {
  const query = ctx.db('collections').where({ storeId }).select('collections.*', withProductsCount(ctx.db));
  if (filters.isPublished !== undefined) query.where({ isPublished: filters.isPublished });
  // The slug is the collection's handle: operators search by either.
  if (filters.q) query.whereRaw('(lower(title) like ? or lower(slug) like ?)', [containsPattern(filters.q), containsPattern(filters.q)]);
  const result = await keysetPage<CollectionRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  const media = await mediaById(ctx.db, storeId, result.items.map((row) => row.mediaId));
  return { collections: result.items.map((row) => toCollectionDto(ctx, row, media)), nextCursor: result.nextCursor };
}

/** Products of a collection a page at a time (a collection may hold thousands). */
export const COLLECTION_PRODUCTS_PAGE = { limit: 100 };

/** A collection with one page of its products in order (`productIds` are that page's); `nextCursor` pages on. */
export async function getCollectionPage(ctx: AppContext, storeId: string, collectionId: string, page: PageRequest) {
  const row: CollectionRow | undefined = await ctx.db('collections').where({ storeId, id: collectionId }).first('collections.*', withProductsCount(ctx.db));
  if (!row) throw notFound('Collection');
  const productsQuery = ctx.db('collectionProducts as cp')
    .join('products as p', (on) => on.on('p.storeId', 'cp.storeId').andOn('p.id', 'cp.productId'))
    .where({ 'cp.storeId': storeId, 'cp.collectionId': row.id })
    .select('p.id', 'p.title', 'p.slug', 'p.status', 'p.minPrice as price', 'cp.position');
  if (page.cursor) {
    const [position, id] = decodeCursor(page.cursor, ['integer', 'uuid']);
    productsQuery.whereRaw('(cp.position, p.id) > (?::integer, ?::uuid)', [position as number, id as string]);
  }
  const [media, rows] = await Promise.all([
    mediaById(ctx.db, storeId, [row.mediaId]),
    productsQuery.orderBy([{ column: 'cp.position' }, { column: 'p.id' }]).limit(page.limit + 1) as Promise<Array<{ id: string; position: number }>>
  ]);
  const hasMore = rows.length > page.limit;
  const products = hasMore ? rows.slice(0, page.limit) : rows;
  const last = products[products.length - 1];
  return {
    collection: { ...toCollectionDto(ctx, row, media), productIds: products.map((p) => p.id), products },
    nextCursor: hasMore && last ? encodeCursor([last.position, last.id]) : null
  };
}

export async function getCollection(ctx: AppContext, storeId: string, collectionId: string) {
  return (await getCollectionPage(ctx, storeId, collectionId, COLLECTION_PRODUCTS_PAGE)).collection;
}

export async function createCollection(ctx: AppContext, storeId: string, input: CollectionInput & { title: string }) {
  const id = await withTransaction(ctx, async (trx, emit) => {
    await checkMedia(trx, storeId, input.mediaId);
    const row = await insertWithSlug(trx, {
      table: 'collections',
      storeId,
      explicitSlug: input.slug,
      title: input.title,
      fallback: 'collection',
      taken: slugTaken,
      insert: async (savepoint, slug) => {
        const [inserted] = await savepoint('collections')
          .insert({ storeId, title: input.title, slug, description: input.description ?? '', isPublished: input.isPublished ?? false, mediaId: input.mediaId ?? null })
          .returning('*');
        return inserted as CollectionRow;
      }
    });
    await replaceMembership(trx, storeId, row.id, input.productIds ?? []);
    emit({ type: 'collection.changed', storeId, collectionId: row.id });
    return row.id;
  });
  return getCollection(ctx, storeId, id);
}

export async function updateCollection(ctx: AppContext, storeId: string, collectionId: string, input: CollectionInput) {
  await withTransaction(ctx, async (trx, emit) => {
    const current: CollectionRow | undefined = await trx('collections').where({ storeId, id: collectionId }).forUpdate().first();
    if (!current) throw notFound('Collection');
    await checkMedia(trx, storeId, input.mediaId);
    const changes: Record<string, unknown> = {};
    for (const key of ['title', 'description', 'isPublished', 'mediaId'] as const) if (input[key] !== undefined) changes[key] = input[key];
    if (input.slug !== undefined && input.slug !== current.slug) changes.slug = input.slug;
    try {
      await trx.savepoint((savepoint) => savepoint('collections').where({ storeId, id: collectionId }).update({ ...changes, updatedAt: savepoint.fn.now() }));
    } catch (error) {
      if (uniqueViolation(error) === 'collections_store_slug_key') throw slugTaken();
      throw error;
    }
    if (input.productIds !== undefined) await replaceMembership(trx, storeId, collectionId, input.productIds);
    emit({ type: 'collection.changed', storeId, collectionId });
  });
  return getCollection(ctx, storeId, collectionId);
}

/**
 * Deletes a collection: its product memberships go with it (the products stay), the storefront's
 * cached catalog is dropped, and the entry keeps what the collection was.
 */
export async function deleteCollection(ctx: AppContext, storeId: string, collectionId: string) {
  await withTransaction(ctx, async (trx, emit) => {
    const current: CollectionRow | undefined = await trx('collections').where({ storeId, id: collectionId }).forUpdate().first();
    if (!current) throw notFound('Collection');
    const productIds = (await trx('collectionProducts').where({ storeId, collectionId }).orderBy('position').pluck('productId')) as string[];
    await trx('collections').where({ storeId, id: collectionId }).delete();
    emit({ type: 'collection.changed', storeId, collectionId });
    const before = { title: current.title, slug: current.slug, isPublished: current.isPublished, productIds };
    await recordAudit(ctx, trx, { storeId, action: 'collection.deleted', resourceType: 'collection', resourceId: collectionId, before, after: null });
  });
  return { deleted: true as const, id: collectionId };
}

/* Storefront: published collections only. */

const toStorefrontCollectionDto = (ctx: AppContext, row: CollectionRow, media: Map<string, MediaRow>) => {
  const { id, title, slug, description, image, createdAt, updatedAt } = toCollectionDto(ctx, row, media);
  return { id, title, slug, description, image: image ? { id: image.id, url: image.url, alt: image.alt, width: image.width, height: image.height } : null, createdAt, updatedAt };
};

export async function findPublishedCollection(ctx: AppContext, storeId: string, slug: string): Promise<CollectionRow> {
  const row: CollectionRow | undefined = await ctx.db('collections').where({ storeId, isPublished: true }).whereRaw('lower(slug) = lower(?)', [slug]).first();
  if (!row) throw notFound('Collection');
  return row;
}

export async function storefrontCollectionDto(ctx: AppContext, row: CollectionRow) {
  return toStorefrontCollectionDto(ctx, row, await mediaById(ctx.db, row.storeId, [row.mediaId]));
}
