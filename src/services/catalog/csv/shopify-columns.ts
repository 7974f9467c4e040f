/**
 * Shopify's product CSV (issue #33): the columns in Shopify's order, one row per variant, later rows
 * of a handle carrying only variant and image columns. The export writes exactly these; the import
 * maps a header onto them by name (case and spacing aside) and lists the columns it ignored.
 */
export const SHOPIFY_COLUMNS = [
  'Handle',
  'Title',
  'Body (HTML)',
  'Vendor',
  'Product Category',
  'Type',
  'Tags',
  'Published',
  'Option1 Name',
  'Option1 Value',
  'Option2 Name',
  'Option2 Value',
  'Option3 Name',
  'Option3 Value',
  'Variant SKU',
  'Variant Grams',
  'Variant Inventory Qty',
  'Variant Inventory Policy',
  'Variant Price',
  'Variant Compare At Price',
  'Variant Requires Shipping',
  'Variant Taxable',
  'Variant Barcode',
  'Image Src',
  'Image Position',
  'Image Alt Text',
  'SEO Title',
  'SEO Description',
  'Variant Image',
  'Variant Weight Unit',
  'Cost per item',
  'Status'
] as const;

export type ShopifyColumn = (typeof SHOPIFY_COLUMNS)[number];

/** Product columns Shopwright keeps as given (`products.csv_fields`) and writes back on export. */
export const PRODUCT_KEPT: ShopifyColumn[] = ['Vendor', 'Product Category', 'Type', 'Published'];
/**
 * Variant columns kept as given (`product_variants.csv_fields`). 'Variant Grams' and 'Variant
 * Requires Shipping' are read into the variant's `weightGrams` and `requiresShipping` instead
 * (parseGrams, parseFlag); 'Variant Weight Unit' is Shopify's display unit (its grams are always grams).
 */
export const VARIANT_KEPT: ShopifyColumn[] = [
  'Variant Taxable',
  'Variant Barcode',
  'Variant Image',
  'Variant Weight Unit',
  'Cost per item'
];

const normalise = (name: string) => name.replace(/^\uFEFF/, '').toLowerCase().replace(/[^a-z0-9]/g, '');
const BY_NAME = new Map<string, ShopifyColumn>(SHOPIFY_COLUMNS.map((column) => [normalise(column), column]));
// Shopify's own exports have said "Variant Fulfillment Service", "Gift Card" … (ignored) and, in
// older files, "Image Alt Text" as "Image Alt": accepted.
BY_NAME.set('imagealt', 'Image Alt Text');

export interface ProductColumnMap {
  indexes: Partial<Record<ShopifyColumn, number>>;
  /** Header cells that name no column we read (reported in the job result). */
  ignored: string[];
}

/** Maps a header row; null when it has no Handle column (not a product CSV). */
export function mapProductHeader(header: string[]): ProductColumnMap | null {
  const map: ProductColumnMap = { indexes: {}, ignored: [] };
  header.forEach((raw, index) => {
    const column = BY_NAME.get(normalise(raw));
    if (column && map.indexes[column] === undefined) map.indexes[column] = index;
    else if (raw.trim()) map.ignored.push(raw.replace(/^\uFEFF/, '').trim());
  });
  return map.indexes.Handle === undefined ? null : map;
}

/** "1500" or "1500.0" -> 1500 grams (rounded half up); null for an empty cell; undefined when not a weight. */
export function parseGrams(cell: string): number | null | undefined {
  if (!cell) return null;
  if (!/^\d{1,9}(\.\d*)?$/.test(cell)) return undefined;
  return Math.round(Number(cell));
}

/** Shopify's TRUE/FALSE (also yes/no, 1/0); undefined when it is neither. */
export function parseFlag(cell: string): boolean | undefined {
  const value = cell.toLowerCase();
  if (['true', 'yes', '1'].includes(value)) return true;
  if (['false', 'no', '0'].includes(value)) return false;
  return undefined;
}

/** Decimal places of a currency's minor unit (USD 2, JPY 0). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "19.99" -> 1999 (USD); null when the cell is not a non-negative amount with at most `digits` decimals. */
export function parseMoney(cell: string, digits: number): number | null {
  const match = /^(\d{1,9})(?:\.(\d*))?$/.exec(cell);
  if (!match) return null;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** 1999 -> "19.99" (the export's one spelling, so an export re-imported exports the same). */
export function formatMoney(minor: number, digits: number): string {
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
