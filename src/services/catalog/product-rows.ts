import type { AppContext } from '../../context.js';
import { toMediaDto, type MediaRow } from './media.js';
import type { Sql } from '../../db/transaction.js';

/**
 * Row types and DTOs shared by the admin and storefront catalog, plus the batch loaders that
 * hydrate a page of products with two queries (variants, media) whatever the page size.
 */

export const PRODUCT_STATUSES = ['draft', 'active', 'archived'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];
export const INVENTORY_POLICIES = ['deny', 'continue'] as const;
export type InventoryPolicy = (typeof INVENTORY_POLICIES)[number];

export interface ProductOption {
  name: string;
  values: string[];
}

export interface ProductRow {
  id: string;
  storeId: string;
  title: string;
  slug: string;
  description: string;
  status: ProductStatus;
  tags: string[];
  options: ProductOption[];
  seo: { title?: string | null; description?: string | null };
  minPrice: number;
  maxPrice: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface VariantRow {
  id: string;
  storeId: string;
  productId: string;
  sku: string | null;
  title: string;
  optionValues: Record<string, string>;
  price: number;
  compareAtPrice: number | null;
  inventoryQuantity: number;
  inventoryPolicy: InventoryPolicy;
  /** Integer grams; null: not given (counts 0 in a cart's shipping weight). */
  weightGrams: number | null;
  /** False for what never ships (digital goods, services): a cart of only such lines needs no shipping rate. */
  requiresShipping: boolean;
  /** Tax class (services/taxes: a region's classRates key; null = the region's default rate). */
  taxClass?: string | null;
  position: number;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Every products column but the generated search vector (never sent to clients). */
export const PRODUCT_COLUMNS = [
  'id',
  'storeId',
  'title',
  'slug',
  'description',
  'status',
  'tags',
  'options',
  'seo',
  'minPrice',
  'maxPrice',
  'createdAt',
  'updatedAt'
] as const;

export const productColumns = (alias?: string) => PRODUCT_COLUMNS.map((column) => (alias ? `${alias}.${column}` : column));

export const isAvailable = (variant: Pick<VariantRow, 'inventoryPolicy' | 'inventoryQuantity'>) =>
  variant.inventoryPolicy === 'continue' || variant.inventoryQuantity > 0;

/** SQL for "has a live variant that can be sold", on a products alias. */
export const IN_STOCK_SQL = (alias: string) =>
  `exists (select 1 from product_variants v where v.product_id = ${alias}.id and v.archived_at is null and (v.inventory_policy = 'continue' or v.inventory_quantity > 0))`;

/**
 * What a storefront DTO reads of a variant. Leaving out the timestamps matters on the uncached
 * storefront path: parsing ~200 dates per page was a visible share of its CPU.
 */
export const STOREFRONT_VARIANT_COLUMNS = ['id', 'productId', 'sku', 'title', 'optionValues', 'price', 'compareAtPrice', 'inventoryQuantity', 'inventoryPolicy', 'weightGrams', 'requiresShipping'];

export async function loadVariants(
  db: Sql,
  storeId: string,
  productIds: string[],
  columns: readonly string[] = ['*']
): Promise<Map<string, VariantRow[]>> {
  const byProduct = new Map<string, VariantRow[]>(productIds.map((id) => [id, []]));
  if (productIds.length === 0) return byProduct;
  const rows: VariantRow[] = await db('productVariants').select(columns).where({ storeId }).whereIn('productId', productIds).whereNull('archivedAt').orderBy([
    { column: 'productId' },
    { column: 'position' },
    { column: 'createdAt' }
  ]);
  for (const row of rows) byProduct.get(row.productId)?.push(row);
  return byProduct;
}

export async function loadProductMedia(db: Sql, storeId: string, productIds: string[]): Promise<Map<string, MediaRow[]>> {
  const byProduct = new Map<string, MediaRow[]>(productIds.map((id) => [id, []]));
  if (productIds.length === 0) return byProduct;
  const rows: Array<MediaRow & { productId: string }> = await db('productMedia as pm')
    .join('media as m', (on) => on.on('m.storeId', 'pm.storeId').andOn('m.id', 'pm.mediaId'))
    .where('pm.storeId', storeId)
    .whereIn('pm.productId', productIds)
    .orderBy([{ column: 'pm.productId' }, { column: 'pm.position' }])
    .select('m.*', 'pm.productId');
  for (const row of rows) byProduct.get(row.productId)?.push(row);
  return byProduct;
}

export const toAdminVariantDto = (row: VariantRow) => ({
  id: row.id,
  sku: row.sku,
  title: row.title,
  optionValues: row.optionValues,
  price: row.price,
  compareAtPrice: row.compareAtPrice,
  inventoryQuantity: row.inventoryQuantity,
  inventoryPolicy: row.inventoryPolicy,
  taxClass: row.taxClass ?? null,
  available: isAvailable(row),
  weightGrams: row.weightGrams,
  requiresShipping: row.requiresShipping,
  position: row.position,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

const seoDto = (seo: ProductRow['seo']) => ({ title: seo?.title ?? null, description: seo?.description ?? null });

export function toAdminProductDto(ctx: AppContext, row: ProductRow, variants: VariantRow[], media: MediaRow[]) {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    status: row.status,
    tags: row.tags,
    options: row.options,
    seo: seoDto(row.seo),
    minPrice: row.minPrice,
    maxPrice: row.maxPrice,
    totalInventory: variants.reduce((sum, v) => sum + v.inventoryQuantity, 0),
    variants: variants.map(toAdminVariantDto),
    media: media.map((m) => toMediaDto(ctx, m)),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  };
}

const toImageDto = (ctx: AppContext, m: MediaRow) => {
  const { id, url, alt, width, height } = toMediaDto(ctx, m);
  return { id, url, alt, width, height };
};

/** What a storefront renders: prices, compare-at prices, availability and image URLs; no stock counts. */
export function toStorefrontProductDto(ctx: AppContext, row: ProductRow, variants: VariantRow[], media: MediaRow[]) {
  const images = media.map((m) => toImageDto(ctx, m));
  const compareAt = variants.map((v) => v.compareAtPrice).filter((p): p is number => p !== null);
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    tags: row.tags,
    options: row.options,
    seo: seoDto(row.seo),
    price: row.minPrice,
    priceRange: { min: row.minPrice, max: row.maxPrice },
    compareAtPrice: compareAt.length ? Math.max(...compareAt) : null,
    available: variants.some(isAvailable),
    featuredImage: images[0] ?? null,
    images,
    variants: variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      title: v.title,
      optionValues: v.optionValues,
      price: v.price,
      compareAtPrice: v.compareAtPrice,
      available: isAvailable(v),
      weightGrams: v.weightGrams,
      requiresShipping: v.requiresShipping
    })),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  };
}

/** Hydrates a page of product rows: one query for variants, one for media. */
export async function hydrateProducts<T>(
  ctx: AppContext,
  storeId: string,
  rows: ProductRow[],
  toDto: (ctx: AppContext, row: ProductRow, variants: VariantRow[], media: MediaRow[]) => T,
  variantColumns?: readonly string[]
): Promise<T[]> {
  const ids = rows.map((row) => row.id);
  const [variants, media] = await Promise.all([loadVariants(ctx.db, storeId, ids, variantColumns), loadProductMedia(ctx.db, storeId, ids)]);
  return rows.map((row) => toDto(ctx, row, variants.get(row.id) ?? [], media.get(row.id) ?? []));
}
