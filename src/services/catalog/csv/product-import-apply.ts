import type { AppContext } from '../../../context.js';
import type { EmitEvent } from '../../../platform/events/domain-event.js';
import type { Transaction } from '../../../db/transaction.js';
import { ledgerColumns } from '../inventory.js';
import type { ProductOption, VariantRow } from '../product-rows.js';
import { removeVariants } from '../variants.js';
import type { ProductDraft, RowError, VariantDraft } from './product-rows.js';

export type ImportMode = 'upsert' | 'create' | 'update';

export interface BatchOutcome {
  created: number;
  updated: number;
  unchanged: number;
  failedProducts: number;
  errors: RowError[];
}

interface StoredProduct {
  id: string;
  key: string;
  title: string;
  description: string;
  status: string;
  tags: string[];
  options: ProductOption[];
  seo: Record<string, string>;
  csvFields: Record<string, string>;
}

/** JSON equality with object keys in any order (jsonb gives them back in its own order). */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value ?? null);
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const optionKey = (options: ProductOption[], values: Record<string, string>) => JSON.stringify(options.map((o) => values[o.name] ?? null));

/**
 * Applies one batch of products in the caller's transaction, set-wise where it counts (one insert
 * of the new products, one of the new variants, one of their ledger rows). An existing product
 * (same handle) is rewritten only where the file differs, so the same file twice changes nothing
 * and emits nothing. Variants are matched by their option values; a variant no longer in the file
 * goes as an admin edit removes it (archived when ordered). Stock set by the file is a ledger row
 * with reason `import` and the job. Emits `product.changed` (created / updated) as an admin edit.
 * `media`: the image URL -> media id of this batch's images already stored.
 */
export async function applyProductBatch(
  ctx: AppContext,
  trx: Transaction,
  emit: EmitEvent,
  target: { storeId: string; jobId: string; userId: string | null; mode: ImportMode },
  drafts: ProductDraft[],
  media: Map<string, string>
): Promise<BatchOutcome> {
  const { storeId } = target;
  const outcome: BatchOutcome = { created: 0, updated: 0, unchanged: 0, failedProducts: 0, errors: [] };
  const live = drafts.filter((d) => !d.failed);
  const stored = new Map<string, StoredProduct>();
  if (live.length) {
    const rows = (await trx('products')
      .where({ storeId })
      .whereRaw('lower(slug) = any(?)', [live.map((d) => d.handle)])
      .orderBy('id')
      .forUpdate()
      .select('id', trx.raw('lower(slug) as key'), 'title', 'description', 'status', 'tags', 'options', 'seo', 'csvFields')) as StoredProduct[];
    for (const row of rows) stored.set(row.key, row);
  }
  const accepted: ProductDraft[] = [];
  for (const draft of drafts) {
    if (draft.failed) continue;
    const exists = stored.has(draft.handle);
    if (target.mode === 'create' && exists) draft.errors.push({ row: draft.firstRow, column: 'Handle', message: `a product with handle "${draft.handle}" exists (mode create)` });
    else if (target.mode === 'update' && !exists) draft.errors.push({ row: draft.firstRow, column: 'Handle', message: `no product has handle "${draft.handle}" (mode update)` });
    else accepted.push(draft);
  }

  // SKUs: one per store among live variants; a clash fails that variant's row.
  const skus = accepted.flatMap((d) => d.variants.filter((v) => v.sku).map((v) => v.sku!.toLowerCase()));
  const takenBy = new Map<string, string>();
  if (skus.length) {
    const rows = (await trx('productVariants')
      .where({ storeId })
      .whereNull('archivedAt')
      .whereRaw('lower(sku) = any(?)', [skus])
      .select(trx.raw('lower(sku) as sku'), 'productId')) as Array<{ sku: string; productId: string }>;
    for (const row of rows) takenBy.set(row.sku, row.productId);
  }
  const seenSku = new Map<string, number>();
  for (const draft of accepted) {
    const own = stored.get(draft.handle)?.id;
    draft.variants = draft.variants.filter((variant) => {
      if (!variant.sku) return true;
      const key = variant.sku.toLowerCase();
      const owner = takenBy.get(key);
      const earlier = seenSku.get(key);
      const problem = earlier !== undefined ? `the SKU is also on row ${earlier}` : owner && owner !== own ? 'another product of the store has this SKU' : null;
      if (problem) draft.errors.push({ row: variant.row, column: 'Variant SKU', message: problem });
      else seenSku.set(key, variant.row);
      return !problem;
    });
    draft.options = draft.options.map((o) => ({ name: o.name, values: [...new Set(draft.variants.map((v) => v.optionValues[o.name]!))] }));
  }
  const applicable = accepted.filter((d) => d.variants.length > 0);
  outcome.failedProducts = drafts.length - applicable.length;

  const productColumns = (d: ProductDraft) => ({
    title: d.title,
    description: d.description,
    status: d.status,
    tags: d.tags,
    options: d.options,
    seo: d.seo,
    csvFields: d.csvFields
  });
  const toWrite = (d: ProductDraft) => {
    const c = productColumns(d);
    return { ...c, options: JSON.stringify(c.options), seo: JSON.stringify(c.seo), csvFields: JSON.stringify(c.csvFields) };
  };

  // New products: one insert.
  const fresh = applicable.filter((d) => !stored.has(d.handle));
  const ids = new Map<string, string>();
  if (fresh.length) {
    const inserted = (await trx('products')
      .insert(
        // Prices known here: a new product is written once, with its price range (no second update).
        fresh.map((d) => ({ storeId, slug: d.handle, ...toWrite(d), minPrice: Math.min(...d.variants.map((v) => v.price)), maxPrice: Math.max(...d.variants.map((v) => v.price)) }))
      )
      .returning(['id', 'slug'])) as Array<{ id: string; slug: string }>;
    for (const row of inserted) ids.set(row.slug.toLowerCase(), row.id);
  }
  const changed = new Set<string>();
  for (const draft of applicable) {
    const current = stored.get(draft.handle);
    if (!current) continue;
    ids.set(draft.handle, current.id);
    const wanted = productColumns(draft);
    const before = { title: current.title, description: current.description, status: current.status, tags: current.tags, options: current.options, seo: current.seo, csvFields: current.csvFields };
    if (!same(wanted, before)) {
      await trx('products').where({ storeId, id: current.id }).update({ ...toWrite(draft), updatedAt: trx.fn.now() });
      changed.add(current.id);
    }
  }

  // Variants.
  const existingIds = applicable.filter((d) => stored.has(d.handle)).map((d) => ids.get(d.handle)!);
  const existing = new Map<string, VariantRow[]>();
  if (existingIds.length) {
    const rows = (await trx('productVariants')
      .where({ storeId })
      .whereIn('productId', existingIds)
      .whereNull('archivedAt')
      .orderBy('id')
      .forNoKeyUpdate()
      .select('*')) as Array<VariantRow & { csvFields: Record<string, string> }>;
    for (const row of rows) existing.set(row.productId, [...(existing.get(row.productId) ?? []), row]);
  }
  const inserts: Array<Record<string, unknown>> = [];
  const ledger: Array<Record<string, unknown>> = [];
  const ledgerOf = { userId: target.userId, jobId: target.jobId, code: 'import' as const, reason: 'product CSV import' };
  for (const draft of applicable) {
    const productId = ids.get(draft.handle)!;
    const current = existing.get(productId) ?? [];
    const byKey = new Map(current.map((v) => [optionKey(draft.options, v.optionValues), v]));
    const kept = new Set<string>();
    const toRemove: VariantRow[] = [];
    const columnsOf = (v: VariantDraft, position: number) => ({
      sku: v.sku,
      title: Object.keys(v.optionValues).length ? Object.values(v.optionValues).join(' / ') : 'Default',
      optionValues: v.optionValues,
      price: v.price,
      compareAtPrice: v.compareAtPrice,
      inventoryPolicy: v.inventoryPolicy,
      position,
      ...(v.weightGrams !== undefined ? { weightGrams: v.weightGrams } : {}),
      ...(v.requiresShipping !== undefined ? { requiresShipping: v.requiresShipping } : {}),
      csvFields: v.csvFields
    });
    const updates: Array<[VariantRow, VariantDraft, ReturnType<typeof columnsOf>]> = [];
    draft.variants.forEach((variant, position) => {
      const match = byKey.get(optionKey(draft.options, variant.optionValues));
      const columns = columnsOf(variant, position);
      if (!match) {
        inserts.push({ ...columns, optionValues: JSON.stringify(columns.optionValues), csvFields: JSON.stringify(columns.csvFields), storeId, productId, inventoryQuantity: variant.inventoryQuantity });
        return;
      }
      kept.add(match.id);
      const before = columnsOf(
        {
          ...variant,
          sku: match.sku,
          price: match.price,
          compareAtPrice: match.compareAtPrice,
          inventoryPolicy: match.inventoryPolicy,
          optionValues: match.optionValues,
          ...(variant.weightGrams !== undefined ? { weightGrams: match.weightGrams } : {}),
          ...(variant.requiresShipping !== undefined ? { requiresShipping: match.requiresShipping } : {}),
          csvFields: (match as VariantRow & { csvFields: Record<string, string> }).csvFields
        },
        match.position
      );
      if (!same(columns, before) || variant.inventoryQuantity !== match.inventoryQuantity) updates.push([match, variant, columns]);
    });
    for (const variant of current) if (!kept.has(variant.id)) toRemove.push(variant);
    if (toRemove.length) await removeVariants(ctx, trx, storeId, toRemove);
    // A SKU that moves between variants of this product must be free before it is set again.
    if (updates.some(([match, , columns]) => match.sku !== columns.sku)) {
      await trx('productVariants').whereIn('id', updates.map(([match]) => match.id)).where({ storeId }).update({ sku: null });
    }
    for (const [match, variant, columns] of updates) {
      const stock = variant.inventoryQuantity !== match.inventoryQuantity ? { inventoryQuantity: variant.inventoryQuantity } : {};
      await trx('productVariants')
        .where({ storeId, id: match.id })
        .update({ ...columns, optionValues: JSON.stringify(columns.optionValues), csvFields: JSON.stringify(columns.csvFields), ...stock, updatedAt: trx.fn.now() });
      if (stock.inventoryQuantity !== undefined) {
        ledger.push({ storeId, variantId: match.id, delta: variant.inventoryQuantity - match.inventoryQuantity, quantityAfter: variant.inventoryQuantity, ...ledgerColumns(ledgerOf) });
      }
    }
    if (stored.has(draft.handle) && (updates.length || toRemove.length || draft.variants.length !== current.length)) changed.add(productId);
  }
  if (inserts.length) {
    const created = (await trx('productVariants').insert(inserts).returning(['id', 'inventoryQuantity', 'productId'])) as Array<{ id: string; inventoryQuantity: number; productId: string }>;
    for (const row of created) {
      if (row.inventoryQuantity) ledger.push({ storeId, variantId: row.id, delta: row.inventoryQuantity, quantityAfter: row.inventoryQuantity, ...ledgerColumns(ledgerOf) });
      if (existingIds.includes(row.productId)) changed.add(row.productId);
    }
  }
  if (ledger.length) await trx('inventoryLedger').insert(ledger);

  // Images, in position order: the product's media become exactly the file's.
  const touched = applicable.map((d) => ids.get(d.handle)!);
  const currentMedia = new Map<string, string[]>();
  if (touched.length) {
    const rows = (await trx('productMedia').where({ storeId }).whereIn('productId', touched).orderBy(['productId', 'position']).select('productId', 'mediaId')) as Array<{ productId: string; mediaId: string }>;
    for (const row of rows) currentMedia.set(row.productId, [...(currentMedia.get(row.productId) ?? []), row.mediaId]);
  }
  for (const draft of applicable) {
    const productId = ids.get(draft.handle)!;
    const wanted = [...new Set(draft.images.map((image) => media.get(image.src)).filter((id): id is string => Boolean(id)))];
    if (same(wanted, currentMedia.get(productId) ?? [])) continue;
    await trx('productMedia').where({ storeId, productId }).delete();
    if (wanted.length) await trx('productMedia').insert(wanted.map((mediaId, position) => ({ storeId, productId, mediaId, position })));
    if (stored.has(draft.handle)) changed.add(productId);
  }

  const priced = [...changed];
  if (priced.length) {
    await trx.raw(
      `update products p set min_price = coalesce(r.min_price, 0), max_price = coalesce(r.max_price, 0)
         from (select product_id, min(price) as min_price, max(price) as max_price from product_variants
                where store_id = ? and product_id = any(?::uuid[]) and archived_at is null group by product_id) r
        where p.store_id = ? and p.id = r.product_id`,
      [storeId, priced, storeId]
    );
  }
  const createdIds = fresh.map((d) => ids.get(d.handle)!);
  if (createdIds.length) emit({ type: 'product.changed', storeId, productIds: createdIds, change: 'created' });
  if (changed.size) emit({ type: 'product.changed', storeId, productIds: [...changed], change: 'updated' });
  outcome.created = createdIds.length;
  outcome.updated = changed.size;
  outcome.unchanged = applicable.length - createdIds.length - changed.size;
  outcome.errors = drafts.flatMap((d) => d.errors);
  return outcome;
}
