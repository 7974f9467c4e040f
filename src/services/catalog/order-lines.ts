import type { Sql } from '../../db/transaction.js';
import { validationFailed } from '../../errors.js';

/**
 * Lines of an order made by hand (a draft order, an order edit or exchange): a variant's, priced
 * at its current price, or a custom title and price. One reading of the variants for both callers,
 * with what pricing needs besides the price (tax class, weight, whether it ships), so a draft and
 * an edit of the same lines price the same.
 */
export type HandLineInput = { variantId: string; quantity: number } | { title: string; price: number; quantity: number; sku?: string | null };

export interface HandLine {
  variantId: string | null;
  productId: string | null;
  title: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  /** The variant's tax class (null: the region's default rate; a custom line has none). */
  taxClass: string | null;
  /** The variant's weight (null: unknown, counts as 0; a custom line has none). */
  weightGrams: number | null;
  requiresShipping: boolean;
}

/** What pricing needs of a variant besides its price. */
export interface VariantPricing {
  id: string;
  productId: string;
  sku: string | null;
  title: string;
  price: number;
  taxClass: string | null;
  weightGrams: number | null;
  requiresShipping: boolean;
  /** Archived (read only with `archived: true`): no new line may sell it. */
  archived: boolean;
}

/** "Shirt - M", or the product's title alone for a default variant. */
export const lineTitle = (productTitle: string, variantTitle: string) =>
  !variantTitle || /^default( title)?$/i.test(variantTitle) || variantTitle === productTitle ? productTitle : `${productTitle} - ${variantTitle}`;

/**
 * The store's variants by id, with their line title and pricing fields. `archived: true` reads
 * archived ones too (an order's existing lines keep their variant's tax class and weight).
 */
export async function variantsForPricing(db: Sql, storeId: string, ids: string[], options: { archived?: boolean } = {}): Promise<Map<string, VariantPricing>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = (
    await db.raw(
      `select v.id, v.product_id, v.sku, v.title as variant_title, v.price, v.tax_class, v.weight_grams, v.requires_shipping, v.archived_at is not null as archived, p.title as product_title
         from product_variants v join products p on p.id = v.product_id and p.store_id = v.store_id
        where v.store_id = ? and v.id = any(?::uuid[])${options.archived ? '' : ' and v.archived_at is null'}`,
      [storeId, unique]
    )
  ).rows as Array<{
    id: string;
    productId: string;
    sku: string | null;
    variantTitle: string;
    price: number;
    taxClass: string | null;
    weightGrams: number | null;
    requiresShipping: boolean;
    archived: boolean;
    productTitle: string;
  }>;
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        productId: row.productId,
        sku: row.sku,
        title: lineTitle(row.productTitle, row.variantTitle),
        price: Number(row.price),
        taxClass: row.taxClass ?? null,
        weightGrams: row.weightGrams ?? null,
        requiresShipping: row.requiresShipping ?? true,
        archived: Boolean(row.archived)
      }
    ])
  );
}

/** Variant lines at the variants' current prices, custom lines as given; 422 at `path.N.variantId` for a variant the store does not sell. */
export async function resolveHandLines(db: Sql, storeId: string, input: HandLineInput[], path: string, known?: Map<string, VariantPricing>): Promise<HandLine[]> {
  // `known`: the caller already read these variants (variantsForPricing, archived ones included), in one read with others.
  const byId = known ?? (await variantsForPricing(db, storeId, input.flatMap((line) => ('variantId' in line ? [line.variantId] : []))));
  return input.map((line, index) => {
    if (!('variantId' in line)) {
      return { variantId: null, productId: null, title: line.title, sku: line.sku ?? null, quantity: line.quantity, unitPrice: line.price, taxClass: null, weightGrams: null, requiresShipping: true };
    }
    const variant = byId.get(line.variantId);
    if (!variant || variant.archived) throw validationFailed([{ path: `${path}.${index}.variantId`, message: 'not a variant of this store' }]);
    return {
      variantId: variant.id,
      productId: variant.productId,
      title: variant.title,
      sku: variant.sku,
      quantity: line.quantity,
      unitPrice: variant.price,
      taxClass: variant.taxClass,
      weightGrams: variant.weightGrams,
      requiresShipping: variant.requiresShipping
    };
  });
}
