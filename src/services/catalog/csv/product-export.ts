import { Readable } from 'node:stream';
import type { AppContext } from '../../../context.js';
import { productsExportJob } from '../../../jobs/products-export.js';
import { csvLine, TAG_SEPARATOR } from '../../../platform/csv/format.js';
import { completeJob, findJobRow, reportJobProgress } from '../../job-history/index.js';
import { mediaUrl } from '../media.js';
import type { ProductOption, ProductStatus } from '../product-rows.js';
import { currencyDigits, formatMoney, PRODUCT_KEPT, SHOPIFY_COLUMNS, VARIANT_KEPT, type ShopifyColumn } from './shopify-columns.js';

export const PRODUCTS_EXPORT_JOB_TYPE = productsExportJob.type;
/** Products per page: 1,000 products is a few MB of CSV, and three queries. */
const PAGE_SIZE = 1_000;

export interface ProductExportFilters {
  status?: ProductStatus;
  collectionId?: string;
  tag?: string;
  updatedSince?: string;
}

export interface ProductExportResult {
  products: number;
  rows: number;
  bytes: number;
  fileName: string;
}

interface ExportProduct {
  id: string;
  slug: string;
  title: string;
  description: string;
  status: ProductStatus;
  tags: string[];
  options: ProductOption[];
  seo: { title?: string | null; description?: string | null };
  csvFields: Record<string, string>;
}

interface ExportImage {
  productId: string;
  id: string;
  sourceUrl: string | null;
  alt: string | null;
}

interface ExportVariant {
  productId: string;
  sku: string | null;
  optionValues: Record<string, string>;
  price: number;
  compareAtPrice: number | null;
  inventoryQuantity: number;
  inventoryPolicy: string;
  weightGrams: number | null;
  requiresShipping: boolean;
  csvFields: Record<string, string>;
}

/** Each column's place in a line: rows are filled by index (an object per row and a map over it cost a third of the export's CPU). */
const AT = Object.fromEntries(SHOPIFY_COLUMNS.map((column, index) => [column, index])) as Record<ShopifyColumn, number>;
const PRODUCT_KEPT_AT = PRODUCT_KEPT.map((column) => [column, AT[column]] as const);
const VARIANT_KEPT_AT = VARIANT_KEPT.map((column) => [column, AT[column]] as const);
const OPTION_NAME_AT = [AT['Option1 Name'], AT['Option2 Name'], AT['Option3 Name']];
const OPTION_VALUE_AT = [AT['Option1 Value'], AT['Option2 Value'], AT['Option3 Value']];
/** How often the export writes its progress (each write is a commit: once per page cost more than the page's CSV). */
const PROGRESS_EVERY_MS = 1_000;

/** The rows of one product in Shopify's layout: product columns on the first, then one per variant or image. */
function productLines(ctx: AppContext, product: ExportProduct, variants: ExportVariant[], images: Array<{ id: string; sourceUrl: string | null; alt: string | null }>, digits: number): { text: string; rows: number } {
  const count = Math.max(variants.length, images.length, 1);
  let text = '';
  for (let i = 0; i < count; i++) {
    const row: Array<string | number | null> = new Array(SHOPIFY_COLUMNS.length).fill(null);
    row[AT.Handle] = product.slug;
    if (i === 0) {
      row[AT.Title] = product.title;
      row[AT['Body (HTML)']] = product.description;
      for (const [column, at] of PRODUCT_KEPT_AT) row[at] = product.csvFields[column] ?? null;
      row[AT.Published] ??= product.status === 'active' ? 'TRUE' : 'FALSE';
      row[AT.Tags] = product.tags.join(TAG_SEPARATOR);
      if (product.options.length) product.options.forEach((option, n) => (row[OPTION_NAME_AT[n]!] = option.name));
      else row[AT['Option1 Name']] = 'Title';
      row[AT['SEO Title']] = product.seo.title ?? null;
      row[AT['SEO Description']] = product.seo.description ?? null;
      row[AT.Status] = product.status;
    }
    const variant = variants[i];
    if (variant) {
      if (product.options.length) product.options.forEach((option, n) => (row[OPTION_VALUE_AT[n]!] = variant.optionValues[option.name] ?? null));
      else row[AT['Option1 Value']] = 'Default Title';
      row[AT['Variant SKU']] = variant.sku;
      row[AT['Variant Inventory Qty']] = variant.inventoryQuantity;
      row[AT['Variant Inventory Policy']] = variant.inventoryPolicy;
      row[AT['Variant Price']] = formatMoney(variant.price, digits);
      row[AT['Variant Compare At Price']] = variant.compareAtPrice === null ? null : formatMoney(variant.compareAtPrice, digits);
      for (const [column, at] of VARIANT_KEPT_AT) row[at] = variant.csvFields[column] ?? null;
      row[AT['Variant Grams']] = variant.weightGrams;
      row[AT['Variant Requires Shipping']] = variant.requiresShipping ? 'TRUE' : 'FALSE';
      if (variant.weightGrams !== null) row[AT['Variant Weight Unit']] ??= 'g';
    }
    const image = images[i];
    if (image) {
      row[AT['Image Src']] = image.sourceUrl ?? mediaUrl(ctx, image.id);
      row[AT['Image Position']] = i + 1;
      row[AT['Image Alt Text']] = image.alt;
    }
    text += csvLine(row);
  }
  return { text, rows: count };
}

/**
 * The export job: keyset pages of the store's products by handle (so two stores holding the same
 * catalog export the same bytes), each page's variants and images read in two queries, the next
 * page read while this one is written out, streamed as Shopify's CSV into storage (written whole or
 * not at all, so a retry simply starts over).
 */
export async function runProductExport(ctx: AppContext, jobId: string): Promise<ProductExportResult> {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`export job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result as unknown as ProductExportResult;
  const storeId = job.storeId;
  const filters = (job.input ?? {}) as ProductExportFilters;
  const store = (await ctx.db('stores').where({ id: storeId }).first('currency')) as { currency: string } | undefined;
  const digits = currencyDigits(store?.currency ?? 'USD');
  const key = `exports/${storeId}/${jobId}.csv`;
  const filtered = () => {
    const query = ctx.db('products as p').where('p.storeId', storeId);
    if (filters.status) query.where('p.status', filters.status);
    if (filters.tag) query.whereRaw('? = any(p.tags)', [filters.tag]);
    if (filters.updatedSince) query.where('p.updatedAt', '>=', filters.updatedSince);
    if (filters.collectionId) {
      query.whereExists((sub) => sub.select(ctx.db.raw('1')).from('collectionProducts as cp').where({ 'cp.storeId': storeId, 'cp.collectionId': filters.collectionId! }).whereRaw('cp.product_id = p.id'));
    }
    return query;
  };
  const total = Number(((await filtered().count<{ count: string }[]>('* as count')) as Array<{ count: string }>)[0]?.count ?? 0);
  let products = 0;
  let rows = 0;
  let bytes = 0;
  let reportedAt = performance.now();

  type Page = { page: ExportProduct[]; variantsOf: Map<string, ExportVariant[]>; imagesOf: Map<string, ExportImage[]> };
  /** One keyset page of products with its variants and images (three queries). */
  const readPage = async (after: string | null): Promise<Page> => {
    const query = filtered()
      .select('p.id', 'p.slug', 'p.title', 'p.description', 'p.status', 'p.tags', 'p.options', 'p.seo', 'p.csvFields')
      .orderByRaw('lower(p.slug)')
      .limit(PAGE_SIZE);
    if (after !== null) query.whereRaw('lower(p.slug) > ?', [after]);
    const page = (await query) as ExportProduct[];
    const variantsOf = new Map<string, ExportVariant[]>();
    const imagesOf = new Map<string, ExportImage[]>();
    if (!page.length) return { page, variantsOf, imagesOf };
    const ids = page.map((p) => p.id);
    const [variants, images] = await Promise.all([
      ctx.db('productVariants')
        .where({ storeId })
        .whereIn('productId', ids)
        .whereNull('archivedAt')
        .orderBy(['productId', 'position', 'createdAt'])
        .select('productId', 'sku', 'optionValues', 'price', 'compareAtPrice', 'inventoryQuantity', 'inventoryPolicy', 'weightGrams', 'requiresShipping', 'csvFields') as Promise<ExportVariant[]>,
      ctx.db('productMedia as pm')
        .join('media as m', (on) => on.on('m.storeId', 'pm.storeId').andOn('m.id', 'pm.mediaId'))
        .where('pm.storeId', storeId)
        .whereIn('pm.productId', ids)
        .orderBy(['pm.productId', 'pm.position'])
        .select('pm.productId', 'm.id', 'm.sourceUrl', 'm.alt') as Promise<ExportImage[]>
    ]);
    for (const v of variants) {
      const list = variantsOf.get(v.productId);
      if (list) list.push(v);
      else variantsOf.set(v.productId, [v]);
    }
    for (const m of images) {
      const list = imagesOf.get(m.productId);
      if (list) list.push(m);
      else imagesOf.set(m.productId, [m]);
    }
    return { page, variantsOf, imagesOf };
  };

  async function* csv(): AsyncGenerator<string> {
    const header = csvLine([...SHOPIFY_COLUMNS]);
    bytes += Buffer.byteLength(header);
    yield header;
    let next: Promise<Page> | null = readPage(null);
    while (next) {
      const { page, variantsOf, imagesOf }: Page = await next;
      if (!page.length) return;
      // The next page is read while this one is written out (one page ahead, so memory stays flat).
      next = page.length < PAGE_SIZE ? null : readPage(page[page.length - 1]!.slug.toLowerCase());
      next?.catch(() => undefined);
      let chunk = '';
      for (const product of page) {
        const lines = productLines(ctx, product, variantsOf.get(product.id) ?? [], imagesOf.get(product.id) ?? [], digits);
        chunk += lines.text;
        rows += lines.rows;
      }
      bytes += Buffer.byteLength(chunk);
      yield chunk;
      products += page.length;
      if (performance.now() - reportedAt >= PROGRESS_EVERY_MS) {
        reportedAt = performance.now();
        await reportJobProgress(ctx, jobId, { percent: total ? Math.min(99, Math.floor((products / total) * 100)) : 99, processedRows: rows });
      }
    }
  }

  await ctx.storage.put(key, Readable.from(csv()), { contentType: 'text/csv' });
  const result: ProductExportResult = { products, rows, bytes, fileName: `products-${new Date().toISOString().slice(0, 10)}.csv` };
  await completeJob(ctx, jobId, result as unknown as Record<string, unknown>, key);
  return result;
}
