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
 * Applies one batch of products in the caller's transaction, set-wise: one statement per kind of
 * write for the whole batch (products inserted, products updated, variants removed, updated and
 * inserted with their ledger rows, images), each taking its rows as one JSON parameter
 * (jsonb_to_recordset), so a batch costs a dozen round trips whatever its size. An existing product
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
  const handleRows = new Map<string, number>();
  for (const draft of drafts) {
    if (draft.failed) continue;
    const exists = stored.has(draft.handle);
    const earlier = handleRows.get(draft.handle);
    handleRows.set(draft.handle, earlier ?? draft.firstRow);
    // A handle's rows must be consecutive: a second group of the same handle would be a second product.
    if (earlier !== undefined) draft.errors.push({ row: draft.firstRow, column: 'Handle', message: `the handle "${draft.handle}" already started a product on row ${earlier}; a product's rows must be consecutive` });
    else if (target.mode === 'create' && exists) draft.errors.push({ row: draft.firstRow, column: 'Handle', message: `a product with handle "${draft.handle}" exists (mode create)` });
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

  // New products: one statement, the batch as one JSON parameter (no per-row placeholders to build or plan).
  const fresh = applicable.filter((d) => !stored.has(d.handle));
  const ids = new Map<string, string>();
  if (fresh.length) {
    // Prices known here: a new product is written once, with its price range (no second update).
    const rows = fresh.map((d) => ({ slug: d.handle, ...productColumns(d), min_price: Math.min(...d.variants.map((v) => v.price)), max_price: Math.max(...d.variants.map((v) => v.price)) }));
    const inserted = (await trx.raw(
      `insert into products (store_id, slug, title, description, status, tags, options, seo, csv_fields, min_price, max_price)
       select ?, x.slug, x.title, x.description, x.status, x.tags, x.options, x.seo, x."csvFields", x.min_price, x.max_price
         from jsonb_to_recordset(?::jsonb) as x(slug text, title text, description text, status text, tags text[], options jsonb, seo jsonb, "csvFields" jsonb, min_price int, max_price int)
       returning id, slug`,
      [storeId, JSON.stringify(rows)]
    )) as { rows: Array<{ id: string; slug: string }> };
    for (const row of inserted.rows) ids.set(row.slug.toLowerCase(), row.id);
  }
  const changed = new Set<string>();
  const productUpdates: Array<ReturnType<typeof productColumns> & { id: string }> = [];
  for (const draft of applicable) {
    const current = stored.get(draft.handle);
    if (!current) continue;
    ids.set(draft.handle, current.id);
    const wanted = productColumns(draft);
    const before = { title: current.title, description: current.description, status: current.status, tags: current.tags, options: current.options, seo: current.seo, csvFields: current.csvFields };
    if (!same(wanted, before)) {
      productUpdates.push({ id: current.id, ...wanted });
      changed.add(current.id);
    }
  }
  if (productUpdates.length) {
    await trx.raw(
      `update products p set title = x.title, description = x.description, status = x.status, tags = x.tags, options = x.options, seo = x.seo, csv_fields = x."csvFields", updated_at = now()
         from jsonb_to_recordset(?::jsonb) as x(id uuid, title text, description text, status text, tags text[], options jsonb, seo jsonb, "csvFields" jsonb)
        where p.store_id = ? and p.id = x.id`,
      [JSON.stringify(productUpdates), storeId]
    );
  }

  // Variants: matched by option values, then written in one statement per kind for the whole batch
  // (removed, SKUs freed, updated, inserted with their ledger rows), in that order, as before per product.
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
  const columnsOf = (v: VariantDraft, position: number) => ({
    sku: v.sku,
    title: Object.keys(v.optionValues).length ? Object.values(v.optionValues).join(' / ') : 'Default',
    optionValues: v.optionValues,
    price: v.price,
    compareAtPrice: v.compareAtPrice,
    inventoryPolicy: v.inventoryPolicy,
    position,
    // Undefined when the file has no such column: the stored value stays (hasWeight / hasShipping say which).
    weightGrams: v.weightGrams,
    requiresShipping: v.requiresShipping,
    hasWeight: v.weightGrams !== undefined,
    hasShipping: v.requiresShipping !== undefined,
    csvFields: v.csvFields
  });
  type VariantColumns = ReturnType<typeof columnsOf>;
  const inserts: Array<VariantColumns & { productId: string; inventoryQuantity: number }> = [];
  const updates: Array<VariantColumns & { id: string; inventoryQuantity: number; stockChanged: boolean }> = [];
  const toRemove: VariantRow[] = [];
  const freeSkus: string[] = [];
  const ledger: Array<{ variantId: string; delta: number; quantityAfter: number }> = [];
  for (const draft of applicable) {
    const productId = ids.get(draft.handle)!;
    const current = existing.get(productId) ?? [];
    const byKey = new Map(current.map((v) => [optionKey(draft.options, v.optionValues), v]));
    const kept = new Set<string>();
    const own: Array<[VariantRow, VariantColumns]> = [];
    let productChanged = false;
    draft.variants.forEach((variant, position) => {
      const match = byKey.get(optionKey(draft.options, variant.optionValues));
      const columns = columnsOf(variant, position);
      if (!match) {
        inserts.push({ ...columns, productId, inventoryQuantity: variant.inventoryQuantity });
        if (stored.has(draft.handle)) productChanged = true;
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
      const stockChanged = variant.inventoryQuantity !== match.inventoryQuantity;
      if (!same(columns, before) || stockChanged) {
        own.push([match, columns]);
        updates.push({ ...columns, id: match.id, inventoryQuantity: variant.inventoryQuantity, stockChanged });
        if (stockChanged) ledger.push({ variantId: match.id, delta: variant.inventoryQuantity - match.inventoryQuantity, quantityAfter: variant.inventoryQuantity });
        productChanged = true;
      }
    });
    for (const variant of current) {
      if (kept.has(variant.id)) continue;
      toRemove.push(variant);
      productChanged = true;
    }
    // A SKU that moves between variants of this product must be free before it is set again.
    if (own.some(([match, columns]) => match.sku !== columns.sku)) freeSkus.push(...own.map(([match]) => match.id));
    if (productChanged) changed.add(productId);
  }
  if (toRemove.length) await removeVariants(ctx, trx, storeId, toRemove);
  if (freeSkus.length) await trx.raw('update product_variants set sku = null where store_id = ? and id = any(?::uuid[])', [storeId, freeSkus]);
  if (updates.length) {
    await trx.raw(
      `update product_variants v set sku = x.sku, title = x.title, option_values = x."optionValues", price = x.price, compare_at_price = x."compareAtPrice",
              inventory_policy = x."inventoryPolicy", position = x.position, csv_fields = x."csvFields",
              weight_grams = case when x."hasWeight" then x."weightGrams" else v.weight_grams end,
              requires_shipping = case when x."hasShipping" then x."requiresShipping" else v.requires_shipping end,
              inventory_quantity = case when x."stockChanged" then x."inventoryQuantity" else v.inventory_quantity end, updated_at = now()
         from jsonb_to_recordset(?::jsonb) as x(id uuid, sku text, title text, "optionValues" jsonb, price int, "compareAtPrice" int, "inventoryPolicy" text,
              position int, "csvFields" jsonb, "inventoryQuantity" int, "stockChanged" boolean,
              "weightGrams" int, "requiresShipping" boolean, "hasWeight" boolean, "hasShipping" boolean)
        where v.store_id = ? and v.id = x.id`,
      [JSON.stringify(updates), storeId]
    );
  }
  const ledgerOf = ledgerColumns({ userId: target.userId, jobId: target.jobId, code: 'import', reason: 'product CSV import' });
  const ledgerValues = [storeId, ledgerOf.userId, ledgerOf.reason, ledgerOf.reasonCode, ledgerOf.actor, ledgerOf.jobId];
  const ledgerInsert = `insert into inventory_ledger (store_id, variant_id, delta, quantity_after, user_id, reason, reason_code, actor, job_id)`;
  if (ledger.length) {
    await trx.raw(
      `${ledgerInsert} select ?, x."variantId", x.delta, x."quantityAfter", ?::uuid, ?, ?, ?, ?::uuid from jsonb_to_recordset(?::jsonb) as x("variantId" uuid, delta int, "quantityAfter" int)`,
      [...ledgerValues, JSON.stringify(ledger)]
    );
  }
  if (inserts.length) {
    // New variants and the ledger rows of the stock they start with, in one statement.
    await trx.raw(
      `with v as (
         insert into product_variants (store_id, product_id, sku, title, option_values, price, compare_at_price, inventory_policy, position, csv_fields, inventory_quantity,
                                       weight_grams, requires_shipping)
         select ?, x."productId", x.sku, x.title, x."optionValues", x.price, x."compareAtPrice", x."inventoryPolicy", x.position, x."csvFields", x."inventoryQuantity",
                x."weightGrams", coalesce(x."requiresShipping", true)
           from jsonb_to_recordset(?::jsonb) as x("productId" uuid, sku text, title text, "optionValues" jsonb, price int, "compareAtPrice" int,
                "inventoryPolicy" text, position int, "csvFields" jsonb, "inventoryQuantity" int, "weightGrams" int, "requiresShipping" boolean)
         returning id, inventory_quantity
       )
       ${ledgerInsert} select ?, v.id, v.inventory_quantity, v.inventory_quantity, ?::uuid, ?, ?, ?, ?::uuid from v where v.inventory_quantity <> 0`,
      [storeId, JSON.stringify(inserts), ...ledgerValues]
    );
  }

  // Images, in position order: the product's media become exactly the file's.
  const touched = applicable.map((d) => ids.get(d.handle)!);
  const currentMedia = new Map<string, string[]>();
  if (touched.length) {
    const rows = (await trx('productMedia').where({ storeId }).whereIn('productId', touched).orderBy(['productId', 'position']).select('productId', 'mediaId')) as Array<{ productId: string; mediaId: string }>;
    for (const row of rows) currentMedia.set(row.productId, [...(currentMedia.get(row.productId) ?? []), row.mediaId]);
  }
  const mediaReplaced: string[] = [];
  const mediaRows: Array<{ productId: string; mediaId: string; position: number }> = [];
  for (const draft of applicable) {
    const productId = ids.get(draft.handle)!;
    const wanted = [...new Set(draft.images.map((image) => media.get(image.src)).filter((id): id is string => Boolean(id)))];
    if (same(wanted, currentMedia.get(productId) ?? [])) continue;
    if (currentMedia.has(productId)) mediaReplaced.push(productId);
    wanted.forEach((mediaId, position) => mediaRows.push({ productId, mediaId, position }));
    if (stored.has(draft.handle)) changed.add(productId);
  }
  if (mediaReplaced.length) await trx.raw('delete from product_media where store_id = ? and product_id = any(?::uuid[])', [storeId, mediaReplaced]);
  if (mediaRows.length) {
    await trx.raw(
      `insert into product_media (store_id, product_id, media_id, position)
       select ?, x."productId", x."mediaId", x.position from jsonb_to_recordset(?::jsonb) as x("productId" uuid, "mediaId" uuid, position int)`,
      [storeId, JSON.stringify(mediaRows)]
    );
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
