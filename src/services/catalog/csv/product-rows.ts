import { parseTags, restoreFormula } from '../../../platform/csv/format.js';
import type { InventoryPolicy, ProductOption, ProductStatus } from '../product-rows.js';
import { PRODUCT_KEPT, VARIANT_KEPT, parseFlag, parseGrams, parseMoney, type ProductColumnMap, type ShopifyColumn } from './shopify-columns.js';

export interface RowError {
  /** The file line the record starts on (1-based). */
  row: number;
  column: string;
  message: string;
}

export interface VariantDraft {
  row: number;
  optionValues: Record<string, string>;
  sku: string | null;
  price: number;
  compareAtPrice: number | null;
  inventoryQuantity: number;
  inventoryPolicy: InventoryPolicy;
  /** From 'Variant Grams' (null: empty cell); undefined when the file has no such column (the stored value stays). */
  weightGrams?: number | null;
  /** From 'Variant Requires Shipping' (an empty cell: true); undefined when the file has no such column. */
  requiresShipping?: boolean;
  csvFields: Record<string, string>;
}

export interface ImageDraft {
  row: number;
  src: string;
  position: number;
  alt: string | null;
}

/** All rows of one handle, validated: what the batch applies. `failed`: nothing of it is applied. */
export interface ProductDraft {
  handle: string;
  firstRow: number;
  lastRow: number;
  rows: number;
  failed: boolean;
  title: string;
  description: string;
  status: ProductStatus;
  tags: string[];
  options: ProductOption[];
  seo: { title?: string; description?: string };
  csvFields: Record<string, string>;
  variants: VariantDraft[];
  images: ImageDraft[];
  errors: RowError[];
}

const STATUSES: Record<string, ProductStatus> = { active: 'active', draft: 'draft', archived: 'archived' };
const HANDLE = /^[^\s/?#]{1,255}$/;
const MAX_STOCK = 1_000_000_000;

/** A record read through the header map: trimmed cells, formula guard undone. */
export function cellsOf(record: string[], columns: ProductColumnMap) {
  return (column: ShopifyColumn): string => {
    const index = columns.indexes[column];
    return index === undefined ? '' : restoreFormula((record[index] ?? '').trim());
  };
}

export const handleOf = (record: string[], columns: ProductColumnMap) => cellsOf(record, columns)('Handle').toLowerCase();

/**
 * Builds one product from its rows (in file order). The first row carries the product; every row
 * with an option value, SKU or price is a variant; every row with Image Src adds an image. A bad
 * variant or image row fails only that row; a bad product row fails the product (every row of it).
 */
export function draftProduct(records: Array<{ record: string[]; row: number }>, columns: ProductColumnMap, digits: number): ProductDraft {
  const first = records[0]!;
  const head = cellsOf(first.record, columns);
  const errors: RowError[] = [];
  const fail = (row: number, column: ShopifyColumn, message: string) => errors.push({ row, column, message });
  const handle = head('Handle').toLowerCase();
  if (!HANDLE.test(handle)) fail(first.row, 'Handle', 'a handle is 1 to 255 characters without spaces, "/", "?" or "#"');
  const title = head('Title');
  if (!title) fail(first.row, 'Title', 'the first row of a product needs a Title');
  if (title.length > 255) fail(first.row, 'Title', 'Title is longer than 255 characters');
  const statusCell = head('Status').toLowerCase();
  const status = statusCell ? STATUSES[statusCell] : 'active';
  if (!status) fail(first.row, 'Status', 'Status must be active, draft or archived');
  const tags = parseTags(head('Tags'));
  if (tags.length > 100 || tags.some((tag) => tag.length > 64)) fail(first.row, 'Tags', 'at most 100 tags of at most 64 characters');

  const optionNames: string[] = [];
  for (const n of [1, 2, 3] as const) {
    const name = head(`Option${n} Name` as ShopifyColumn);
    if (name) optionNames.push(name);
    else break;
  }
  // Shopify writes a product without options as one option "Title" with the value "Default Title".
  const noOptions = optionNames.length === 1 && optionNames[0] === 'Title' && head('Option1 Value') === 'Default Title';
  const names = noOptions ? [] : optionNames;
  const productFailed = errors.length > 0;

  const csvFields: Record<string, string> = {};
  for (const column of PRODUCT_KEPT) if (head(column)) csvFields[column] = head(column);
  const seo: ProductDraft['seo'] = {};
  if (head('SEO Title')) seo.title = head('SEO Title');
  if (head('SEO Description')) seo.description = head('SEO Description');

  const variants: VariantDraft[] = [];
  const images: ImageDraft[] = [];
  const combos = new Map<string, number>();
  for (const { record, row } of records) {
    const cell = cellsOf(record, columns);
    const rowErrors: RowError[] = [];
    const bad = (column: ShopifyColumn, message: string) => rowErrors.push({ row, column, message });
    const src = cell('Image Src');
    if (src) {
      const positionCell = cell('Image Position');
      const position = positionCell ? Number(positionCell) : images.length + 1;
      if (!Number.isInteger(position) || position < 1) bad('Image Position', 'Image Position must be a whole number from 1');
      else if (!/^https?:\/\//i.test(src)) bad('Image Src', 'Image Src must be an http(s) URL');
      else images.push({ row, src, position, alt: cell('Image Alt Text') || null });
    }
    const isVariant = Boolean(cell('Option1 Value') || cell('Variant SKU') || cell('Variant Price'));
    if (isVariant) {
      const optionValues: Record<string, string> = {};
      names.forEach((name, i) => {
        const value = cell(`Option${i + 1} Value` as ShopifyColumn);
        if (!value) bad(`Option${i + 1} Value` as ShopifyColumn, `a value for ${name} is required`);
        else optionValues[name] = value;
      });
      const price = parseMoney(cell('Variant Price'), digits);
      if (price === null) bad('Variant Price', cell('Variant Price') ? `"${cell('Variant Price').slice(0, 40)}" is not a price` : 'Variant Price is required');
      const compareCell = cell('Variant Compare At Price');
      const compareAtPrice = compareCell ? parseMoney(compareCell, digits) : null;
      if (compareCell && compareAtPrice === null) bad('Variant Compare At Price', `"${compareCell.slice(0, 40)}" is not a price`);
      const qtyCell = cell('Variant Inventory Qty');
      const inventoryQuantity = qtyCell ? Number(qtyCell) : 0;
      if (!Number.isInteger(inventoryQuantity) || Math.abs(inventoryQuantity) > MAX_STOCK) bad('Variant Inventory Qty', 'Variant Inventory Qty must be a whole number');
      const policyCell = cell('Variant Inventory Policy').toLowerCase();
      const inventoryPolicy: InventoryPolicy = policyCell === 'continue' ? 'continue' : 'deny';
      if (policyCell && policyCell !== 'deny' && policyCell !== 'continue') bad('Variant Inventory Policy', 'Variant Inventory Policy must be deny or continue');
      else if (inventoryPolicy === 'deny' && inventoryQuantity < 0) bad('Variant Inventory Qty', 'negative stock needs the continue policy');
      const weightGrams = columns.indexes['Variant Grams'] === undefined ? undefined : parseGrams(cell('Variant Grams'));
      if (weightGrams === undefined && columns.indexes['Variant Grams'] !== undefined) bad('Variant Grams', 'Variant Grams must be a weight in grams');
      const shipsCell = cell('Variant Requires Shipping');
      const requiresShipping = columns.indexes['Variant Requires Shipping'] === undefined ? undefined : shipsCell ? parseFlag(shipsCell) : true;
      if (requiresShipping === undefined && shipsCell) bad('Variant Requires Shipping', 'Variant Requires Shipping must be TRUE or FALSE');
      const sku = cell('Variant SKU');
      if (sku.length > 64) bad('Variant SKU', 'Variant SKU is longer than 64 characters');
      const key = JSON.stringify(names.map((name) => optionValues[name] ?? null));
      if (!rowErrors.length && combos.has(key)) bad('Option1 Value', `same options as row ${combos.get(key)}`);
      if (!rowErrors.length && !productFailed) {
        combos.set(key, row);
        const kept: Record<string, string> = {};
        for (const column of VARIANT_KEPT) if (cell(column)) kept[column] = cell(column);
        variants.push({ row, optionValues, sku: sku || null, price: price!, compareAtPrice, inventoryQuantity, inventoryPolicy, weightGrams, requiresShipping, csvFields: kept });
      }
    }
    errors.push(...rowErrors);
  }
  if (!productFailed && variants.length === 0 && !errors.length) fail(first.row, 'Variant Price', 'a product needs at least one variant row');
  const options: ProductOption[] = names.map((name) => ({ name, values: [...new Set(variants.map((v) => v.optionValues[name]!))] }));
  images.sort((a, b) => a.position - b.position || a.row - b.row);
  return {
    handle,
    firstRow: first.row,
    lastRow: records[records.length - 1]!.row,
    rows: records.length,
    failed: productFailed || variants.length === 0,
    title,
    description: head('Body (HTML)'),
    status: status ?? 'draft',
    tags,
    options,
    seo,
    csvFields,
    variants,
    images,
    errors
  };
}
