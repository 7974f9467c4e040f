import { recordAudit } from '../audit/index.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound, uniqueViolation } from '../../errors.js';
import { keysetPage, sortOrder, type ListSorts, type PageRequest } from '../../platform/pagination.js';
import { assertStoreMedia } from './media.js';
import {
  hydrateProducts,
  loadProductMedia,
  loadVariants,
  productColumns,
  toAdminProductDto,
  type ProductOption,
  type ProductRow,
  type ProductStatus,
  type VariantRow
} from './product-rows.js';
import { insertWithSlug } from './slugs.js';
import { variantsInUse } from '../../platform/modules/registry.js';
import { syncVariants, type VariantInput } from './variants.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { readTogether, type Sql, type Transaction } from '../../db/transaction.js';

export interface ProductInput {
  title?: string;
  slug?: string;
  description?: string;
  status?: ProductStatus;
  tags?: string[];
  options?: ProductOption[];
  variants?: VariantInput[];
  mediaIds?: string[];
  seo?: { title?: string | null; description?: string | null };
}

export interface ProductFilters {
  status?: ProductStatus;
  q?: string;
  collectionId?: string;
  /** One of `sortValues(PRODUCT_SORTS)`; `PRODUCT_DEFAULT_SORT` when absent. */
  sort?: string;
}

/**
 * The admin list's sorts (`?sort=`, `-` for descending), each ending with the id. `title` has its
 * index (migration 20261126200000); `price` (the lowest variant price) uses the status index when
 * the list is filtered by status.
 */
export const PRODUCT_SORTS: ListSorts = {
  createdAt: { column: 'createdAt' },
  title: { column: 'sortKey', expression: 'lower(products.title)', kinds: ['string', 'uuid'] },
  price: { column: 'minPrice', kinds: ['integer', 'uuid'] }
};
export const PRODUCT_DEFAULT_SORT = '-createdAt';

const slugTaken = () => conflict('slug_taken', 'A product with this slug already exists', [{ path: 'slug', message: 'slug is taken' }]);

/** Tags trimmed by validation; duplicates (case-insensitive) dropped, first spelling kept. */
function cleanTags(tags: string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((tag) => {
    const key = tag.toLowerCase();
    if (!tag || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function replaceProductMedia(trx: Transaction, storeId: string, productId: string, mediaIds: string[]) {
  await assertStoreMedia(trx, storeId, mediaIds, 'mediaIds');
  await trx('productMedia').where({ storeId, productId }).delete();
  if (mediaIds.length) await trx('productMedia').insert(mediaIds.map((mediaId, position) => ({ storeId, productId, mediaId, position })));
}

/** One product with its live variants, media in order and the collections it is in (by title). */
export async function getProduct(ctx: AppContext, storeId: string, productId: string) {
  const product = await adminProduct(ctx, ctx.db, storeId, productId);
  if (!product) throw notFound('Product');
  return product;
}

/** getProduct with the caller's handle (a transaction: webhook payloads); null when there is none. */
export async function adminProduct(ctx: AppContext, db: Sql, storeId: string, productId: string) {
  const product: ProductRow | undefined = await db('products').where({ storeId, id: productId }).first(productColumns());
  if (!product) return null;
  const [variants, media, collections] = await readTogether(db, [
    () => loadVariants(db, storeId, [productId]),
    () => loadProductMedia(db, storeId, [productId]),
    () =>
      db('collectionProducts as cp')
        .join('collections', (on) => on.on('collections.storeId', 'cp.storeId').andOn('collections.id', 'cp.collectionId'))
        .where({ 'cp.storeId': storeId, 'cp.productId': productId })
        .orderBy('title')
        .select('collections.id', 'title', 'slug', 'isPublished') as Promise<Array<{ id: string; title: string; slug: string; isPublished: boolean }>>
  ]);
  return { ...toAdminProductDto(ctx, product, variants.get(productId) ?? [], media.get(productId) ?? []), collections };
}

/** adminProduct for many ids, in four queries whatever their number (webhook payloads of a batch). */
export async function adminProducts(ctx: AppContext, db: Sql, storeId: string, productIds: string[]): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  if (!productIds.length) return found;
  const products: ProductRow[] = await db('products').where({ storeId }).whereIn('id', productIds).select(productColumns());
  const ids = products.map((p) => p.id);
  const [variants, media, collections] = await readTogether(db, [
    () => loadVariants(db, storeId, ids),
    () => loadProductMedia(db, storeId, ids),
    () =>
      db('collectionProducts as cp')
        .join('collections', (on) => on.on('collections.storeId', 'cp.storeId').andOn('collections.id', 'cp.collectionId'))
        .where({ 'cp.storeId': storeId })
        .whereIn('cp.productId', ids)
        .orderBy('title')
        .select('cp.productId', 'collections.id', 'title', 'slug', 'isPublished') as Promise<Array<{ productId: string; id: string; title: string; slug: string; isPublished: boolean }>>
  ]);
  const collectionsOf = new Map<string, Array<{ id: string; title: string; slug: string; isPublished: boolean }>>();
  for (const { productId, ...collection } of collections) collectionsOf.set(productId, [...(collectionsOf.get(productId) ?? []), collection]);
  for (const product of products) {
    found.set(product.id, { ...toAdminProductDto(ctx, product, variants.get(product.id) ?? [], media.get(product.id) ?? []), collections: collectionsOf.get(product.id) ?? [] });
  }
  return found;
}

export async function listProducts(ctx: AppContext, storeId: string, filters: ProductFilters, page: PageRequest) {
  const query = ctx.db('products').where({ storeId }).select(productColumns());
  if (filters.status) query.where({ status: filters.status });
  if (filters.q) {
    const q = filters.q;
    query.where((w) =>
      w
        .whereRaw(`search @@ websearch_to_tsquery('english', ?)`, [q])
        .orWhereRaw(`exists (select 1 from product_variants v where v.store_id = ? and lower(v.sku) = lower(?) and v.product_id = products.id)`, [storeId, q])
    );
  }
  if (filters.collectionId) {
    query.whereExists((sub) =>
      sub.select(ctx.db.raw('1')).from('collectionProducts as cp').where({ 'cp.storeId': storeId, 'cp.collectionId': filters.collectionId! }).whereRaw('cp.product_id = products.id')
    );
  }
  const order = sortOrder(PRODUCT_SORTS, filters.sort ?? PRODUCT_DEFAULT_SORT, PRODUCT_DEFAULT_SORT);
  const result = await keysetPage<ProductRow>(query, order, page);
  return { products: await hydrateProducts(ctx, storeId, result.items, toAdminProductDto), nextCursor: result.nextCursor };
}

/** What a product's audit entries compare. */
const auditedProduct = (row: ProductRow) => ({ title: row.title, slug: row.slug, description: row.description, status: row.status, tags: row.tags, options: row.options, seo: row.seo });

export async function createProduct(ctx: AppContext, storeId: string, userId: string | null, input: ProductInput & { title: string }) {
  const productId = await withTransaction(ctx, async (trx, emit) => {
    const columns = {
      storeId,
      title: input.title,
      description: input.description ?? '',
      status: input.status ?? 'draft',
      tags: cleanTags(input.tags ?? []),
      options: JSON.stringify(input.options ?? []),
      seo: JSON.stringify(input.seo ?? {})
    };
    const row = await insertWithSlug(trx, {
      table: 'products',
      storeId,
      explicitSlug: input.slug,
      title: input.title,
      fallback: 'product',
      taken: slugTaken,
      insert: async (savepoint, slug) => {
        const [inserted] = await savepoint('products').insert({ ...columns, slug }).returning(productColumns());
        return inserted as ProductRow;
      }
    });
    await syncVariants(ctx, trx, { storeId, productId: row.id, userId, options: input.options ?? [] }, input.variants ?? [], []);
    if (input.mediaIds) await replaceProductMedia(trx, storeId, row.id, input.mediaIds);
    emit({ type: 'product.changed', storeId, productIds: [row.id], change: 'created' });
    await recordAudit(ctx, trx, { storeId, action: 'product.created', resourceType: 'product', resourceId: row.id, before: null, after: auditedProduct(row) });
    return row.id;
  });
  return getProduct(ctx, storeId, productId);
}

/** Partial update: only the fields present change. The slug stays put on rename unless given. */
export async function updateProduct(ctx: AppContext, storeId: string, userId: string | null, productId: string, input: ProductInput) {
  await withTransaction(ctx, async (trx, emit) => {
    const current: ProductRow | undefined = await trx('products').where({ storeId, id: productId }).forUpdate().first(productColumns());
    if (!current) throw notFound('Product');
    const changes: Record<string, unknown> = {};
    for (const key of ['title', 'description', 'status'] as const) if (input[key] !== undefined) changes[key] = input[key];
    if (input.tags !== undefined) changes.tags = cleanTags(input.tags);
    if (input.options !== undefined) changes.options = JSON.stringify(input.options);
    if (input.seo !== undefined) changes.seo = JSON.stringify({ ...current.seo, ...input.seo });
    if (input.slug !== undefined && input.slug !== current.slug) changes.slug = input.slug;
    try {
      await trx.savepoint((savepoint) => savepoint('products').where({ storeId, id: productId }).update({ ...changes, updatedAt: savepoint.fn.now() }));
    } catch (error) {
      if (uniqueViolation(error) === 'products_store_slug_key') throw slugTaken();
      throw error;
    }
    if (input.variants !== undefined || input.options !== undefined) {
      const existing: VariantRow[] = await trx('productVariants').where({ productId, storeId }).whereNull('archivedAt').orderBy('position').forUpdate();
      // Options changed without variants: the current variants must still fit the new options.
      const variants = input.variants ?? existing.map((v) => ({ id: v.id }));
      await syncVariants(ctx, trx, { storeId, productId, userId, options: input.options ?? current.options }, variants, existing);
    }
    if (input.mediaIds !== undefined) await replaceProductMedia(trx, storeId, productId, input.mediaIds);
    emit({ type: 'product.changed', storeId, productIds: [productId], change: 'updated' });
    const after = { ...auditedProduct(current), ...changes, options: input.options ?? current.options, seo: changes.seo ? JSON.parse(changes.seo as string) : current.seo };
    const extra = { ...(input.variants !== undefined ? { variants: 'replaced' } : {}), ...(input.mediaIds !== undefined ? { mediaIds: input.mediaIds } : {}) };
    await recordAudit(ctx, trx, { storeId, action: 'product.updated', resourceType: 'product', resourceId: productId, before: auditedProduct(current), after: { ...after, ...extra } });
  });
  return getProduct(ctx, storeId, productId);
}

export async function setProductStatus(ctx: AppContext, storeId: string, productId: string, status: ProductStatus) {
  await withTransaction(ctx, async (trx, emit) => {
    const before: { status: string } | undefined = await trx('products').where({ storeId, id: productId }).forUpdate().first('status');
    const updated = await trx('products').where({ storeId, id: productId }).update({ status, updatedAt: trx.fn.now() });
    if (!updated) throw notFound('Product');
    await recordAudit(ctx, trx, { storeId, action: 'product.updated', resourceType: 'product', resourceId: productId, before: { status: before?.status }, after: { status } });
    emit({ type: 'product.changed', storeId, productIds: [productId], change: 'updated' });
  });
  return getProduct(ctx, storeId, productId);
}

/**
 * Deletes a product with its variants, media links and collection places. A product one of whose
 * variants is ordered or held by an open checkout cannot be deleted (409 `product_in_use`): archive
 * it instead (its order lines keep their titles either way). Webhook topic product.deleted, whose
 * data is `{ id }` (as Shopify's products/delete).
 */
export async function deleteProduct(ctx: AppContext, storeId: string, productId: string) {
  await withTransaction(ctx, async (trx, emit) => {
    const product = await trx('products').where({ storeId, id: productId }).forUpdate().first('id');
    if (!product) throw notFound('Product');
    const variantIds = (await trx('productVariants').where({ storeId, productId }).forUpdate().pluck('id')) as string[];
    if ((await variantsInUse(ctx, trx, storeId, variantIds)).size) {
      throw conflict('product_in_use', 'This product has been ordered or is in an open checkout: archive it instead', [{ path: 'productId', message: 'variants in use' }]);
    }
    const before = (await trx('products').where({ storeId, id: productId }).first(productColumns())) as ProductRow;
    await trx('products').where({ storeId, id: productId }).delete();
    emit({ type: 'product.changed', storeId, productIds: [productId], change: 'deleted' });
    await recordAudit(ctx, trx, { storeId, action: 'product.deleted', resourceType: 'product', resourceId: productId, before: auditedProduct(before), after: null });
  });
  return { deleted: true as const, id: productId };
}
