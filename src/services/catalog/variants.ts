import type { AppContext } from '../../context.js';
import { variantsInUse } from '../../platform/modules/registry.js';
import { checkViolation, conflict, uniqueViolation, validationFailed, type ErrorDetail } from '../../errors.js';
import { ledgerColumns, setInventory } from './inventory.js';
import type { InventoryPolicy, ProductOption, VariantRow } from './product-rows.js';
import type { Transaction } from '../../db/transaction.js';

export interface VariantInput {
  id?: string;
  sku?: string | null;
  title?: string;
  optionValues?: Record<string, string> | string[];
  price?: number;
  compareAtPrice?: number | null;
  inventoryQuantity?: number;
  inventoryPolicy?: InventoryPolicy;
  /** Integer grams (null: unknown); or `weight` in `weightUnit`, converted to grams (rounded half up). */
  weightGrams?: number | null;
  weight?: number;
  weightUnit?: WeightUnit;
  requiresShipping?: boolean;
  taxClass?: string | null;
}

export const WEIGHT_UNITS = ['g', 'kg', 'lb', 'oz'] as const;
export type WeightUnit = (typeof WEIGHT_UNITS)[number];
const GRAMS_PER: Record<WeightUnit, number> = { g: 1, kg: 1000, lb: 453.59237, oz: 28.349523125 };

/** A weight in grams, rounded half up to the gram (1 lb = 453.59237 g, 1 oz = 28.349523125 g). */
export const toGrams = (value: number, unit: WeightUnit) => Math.round(value * GRAMS_PER[unit]);

interface SyncOptions {
  storeId: string;
  productId: string;
  userId: string | null;
  options: ProductOption[];
}

const skuTaken = (index: number) =>
  conflict('conflict', 'A variant with this SKU already exists in the store', [{ path: `variants.${index}.sku`, message: 'sku is taken' }]);

const negativeStockDenied = (index: number, quantity: number) =>
  conflict('insufficient_inventory', `A variant with negative stock (${quantity}) cannot use the deny policy: bring its stock to zero or more first`, [
    { path: `variants.${index}.inventoryPolicy`, message: 'deny needs stock of zero or more' }
  ]);

/** optionValues as `{ Size: "M" }` (an array is read in the product's option order), checked against the options. */
function normaliseOptionValues(input: VariantInput['optionValues'], options: ProductOption[], index: number, details: ErrorDetail[]) {
  const path = `variants.${index}.optionValues`;
  let values: Record<string, string> = {};
  if (Array.isArray(input)) {
    if (input.length > options.length) details.push({ path, message: 'more values than the product has options' });
    input.forEach((value, i) => {
      if (options[i]) values[options[i]!.name] = value;
    });
  } else if (input) {
    values = { ...input };
  }
  if (options.length === 0) return values;
  for (const name of Object.keys(values)) {
    const option = options.find((o) => o.name === name);
    if (!option) details.push({ path: `${path}.${name}`, message: `${name} is not an option of this product` });
    else if (!option.values.includes(values[name]!)) details.push({ path: `${path}.${name}`, message: `must be one of: ${option.values.join(', ')}` });
  }
  for (const option of options) {
    if (values[option.name] === undefined) details.push({ path: `${path}.${option.name}`, message: `a value for ${option.name} is required` });
  }
  return values;
}

const titleFor = (values: Record<string, string>) => (Object.keys(values).length ? Object.values(values).join(' / ') : 'Default');

/** Deletes a variant nobody ordered; archives it when orders (or anything else) still point at it. */
export async function removeVariants(ctx: AppContext, trx: Transaction, storeId: string, variants: VariantRow[]): Promise<void> {
  const ordered = await variantsInUse(ctx, trx, storeId, variants.map((v) => v.id));
  for (const variant of variants) {
    let archive = ordered.has(variant.id);
    if (!archive) {
      try {
        await trx.savepoint((savepoint) => savepoint('productVariants').where({ id: variant.id, storeId }).delete());
      } catch (error) {
        // 23503: a later module (carts, orders) references it through a foreign key.
        if ((error as { code?: string }).code !== '23503') throw error;
        archive = true;
      }
    }
    if (archive) await trx('productVariants').where({ id: variant.id, storeId }).update({ archivedAt: trx.fn.now(), updatedAt: trx.fn.now() });
  }
}

/**
 * Makes the product's live variants match `inputs` (in order): existing ones matched by id and
 * updated, new ones created, the rest removed. Runs inside the caller's transaction, with the
 * product row already locked; stock changes made here are written to the ledger.
 */
export async function syncVariants(ctx: AppContext, trx: Transaction, sync: SyncOptions, inputs: VariantInput[], existing: VariantRow[]): Promise<void> {
  const details: ErrorDetail[] = [];
  const byId = new Map(existing.map((v) => [v.id, v]));
  inputs.forEach((input, index) => {
    if (input.id && !byId.has(input.id)) details.push({ path: `variants.${index}.id`, message: 'not a variant of this product' });
    if (!input.id && input.price === undefined) details.push({ path: `variants.${index}.price`, message: 'price is required for a new variant' });
  });
  const resolved = inputs.map((input, index) => {
    const current = input.id ? byId.get(input.id) : undefined;
    // Kept values are re-checked too: the options themselves may have changed.
    const optionValues = normaliseOptionValues(input.optionValues ?? current?.optionValues, sync.options, index, details);
    return { input, index, current, optionValues };
  });
  if (sync.options.length) {
    const seen = new Map<string, number>();
    for (const { optionValues, index } of resolved) {
      const key = JSON.stringify(sync.options.map((o) => optionValues[o.name] ?? null));
      if (seen.has(key)) details.push({ path: `variants.${index}.optionValues`, message: `same options as variants.${seen.get(key)}` });
      else seen.set(key, index);
    }
  }
  if (details.length) throw validationFailed(details);

  const skus = new Map<string, number>();
  for (const { input, current, index } of resolved) {
    const sku = input.sku !== undefined ? input.sku : current?.sku;
    if (!sku) continue;
    if (skus.has(sku.toLowerCase())) throw skuTaken(index);
    skus.set(sku.toLowerCase(), index);
  }

  const kept = new Set(resolved.map((r) => r.current?.id).filter(Boolean));
  await removeVariants(ctx, trx, sync.storeId, existing.filter((v) => !kept.has(v.id)));

  for (const { input, current, index, optionValues } of resolved) {
    const columns: Record<string, unknown> = { position: index, optionValues: JSON.stringify(optionValues) };
    if (input.sku !== undefined) columns.sku = input.sku || null;
    if (input.title !== undefined) columns.title = input.title;
    else if (!current || input.optionValues !== undefined) columns.title = titleFor(optionValues);
    if (input.price !== undefined) columns.price = input.price;
    if (input.compareAtPrice !== undefined) columns.compareAtPrice = input.compareAtPrice;
    if (input.inventoryPolicy !== undefined) columns.inventoryPolicy = input.inventoryPolicy;
    if (input.weightGrams !== undefined) columns.weightGrams = input.weightGrams;
    else if (input.weight !== undefined) columns.weightGrams = toGrams(input.weight, input.weightUnit ?? 'g');
    if (input.requiresShipping !== undefined) columns.requiresShipping = input.requiresShipping;
    if (input.taxClass !== undefined) columns.taxClass = input.taxClass || null;
    try {
      await trx.savepoint(async (savepoint) => {
        if (current) {
          // A changed quantity is a stock count, as on the inventory route (with the policy, in one write).
          if (input.inventoryQuantity !== undefined && input.inventoryQuantity !== current.inventoryQuantity) {
            const { inventoryPolicy, ...rest } = columns;
            await setInventory(savepoint, sync.storeId, current.id, input.inventoryQuantity, {
              userId: sync.userId,
              reason: 'product_update',
              ...(inventoryPolicy ? { policy: inventoryPolicy as InventoryPolicy } : {})
            });
            await savepoint('productVariants').where({ id: current.id, storeId: sync.storeId }).update({ ...rest, updatedAt: savepoint.fn.now() });
          } else {
            await savepoint('productVariants')
              .where({ id: current.id, storeId: sync.storeId })
              .update({ ...columns, updatedAt: savepoint.fn.now() });
          }
        } else {
          const [created] = await savepoint('productVariants')
            .insert({
              storeId: sync.storeId,
              productId: sync.productId,
              sku: null,
              compareAtPrice: null,
              inventoryQuantity: input.inventoryQuantity ?? 0,
              inventoryPolicy: 'deny',
              ...columns
            })
            .returning(['id', 'inventoryQuantity']);
          // Stock a new variant starts with is a ledger row too: the ledger explains every unit.
          if (created.inventoryQuantity) {
            await savepoint('inventoryLedger').insert({
              storeId: sync.storeId,
              variantId: created.id,
              delta: created.inventoryQuantity,
              quantityAfter: created.inventoryQuantity,
              ...ledgerColumns({ userId: sync.userId, reason: 'new variant' })
            });
          }
        }
      });
    } catch (error) {
      if (uniqueViolation(error) === 'product_variants_store_sku_key') throw skuTaken(index);
      if (checkViolation(error) === 'product_variants_stock_not_negative') throw negativeStockDenied(index, input.inventoryQuantity ?? current?.inventoryQuantity ?? 0);
      throw error;
    }
  }

  await trx.raw(
    `update products p set min_price = coalesce(r.min_price, 0), max_price = coalesce(r.max_price, 0)
       from (select min(price) as min_price, max(price) as max_price from product_variants
              where store_id = ? and product_id = ? and archived_at is null) r
      where p.store_id = ? and p.id = ?`,
    [sync.storeId, sync.productId, sync.storeId, sync.productId]
  );
}
