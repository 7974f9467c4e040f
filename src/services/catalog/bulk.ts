import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { productsBulkJob } from '../../jobs/products-bulk.js';
import type { Transaction } from '../../db/transaction.js';
import type { EmitEvent } from '../../platform/events/domain-event.js';
import { currentAuditRequest, recordAudits, type AuditActor, type AuditOrigin } from '../audit/index.js';
import { completeJob, createJob, findJobRow, saveJobProgressFrom } from '../job-history/index.js';
import { variantsInUse } from '../../platform/modules/registry.js';
import type { Tenant } from '../../platform/roles.js';
import { BulkPacer } from '../../platform/bulk-pacing.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { currencyDigits } from './csv/shopify-columns.js';
import { withDeferredStorefrontRefresh } from './storefront-refresh.js';
import type { InventoryPolicy, ProductStatus } from './product-rows.js';

export const PRODUCTS_BULK_JOB_TYPE = productsBulkJob.type;
const BATCH = 500;
const MAX_REPORTED = 1_000;

export interface BulkFilter {
  status?: ProductStatus;
  collectionId?: string;
  tag?: string;
  q?: string;
}

export type BulkAction =
  | { type: 'setStatus'; status: ProductStatus }
  | { type: 'addTags' | 'removeTags'; tags: string[] }
  | { type: 'addToCollection' | 'removeFromCollection'; collectionId: string }
  | { type: 'changePrice'; mode: 'set' | 'percent' | 'amount'; value: number; rounding?: 'none' | 'whole' | 'ninety_nine' }
  | { type: 'setInventoryPolicy'; policy: InventoryPolicy }
  | { type: 'adjustStock'; delta: number }
  | { type: 'setStock'; quantity: number }
  | { type: 'delete' };

export interface BulkRequest {
  ids?: string[];
  filter?: BulkFilter;
  action: BulkAction;
}

interface BulkAudit {
  actor: AuditActor;
  origin: AuditOrigin;
}

interface BulkCheckpoint {
  afterId: string | null;
  matched: number;
  changed: number;
  skipped: number;
  problems: Array<{ productId: string; message: string }>;
}

/** The products a request names, as a query on `products as p` (ids, or the filter). */
function matching(ctx: AppContext, storeId: string, request: Omit<BulkRequest, 'action'>) {
  const query = ctx.db('products as p').where('p.storeId', storeId);
  if (request.ids) return query.whereIn('p.id', request.ids);
  const filter = request.filter ?? {};
  if (filter.status) query.where('p.status', filter.status);
  if (filter.tag) query.whereRaw('? = any(p.tags)', [filter.tag]);
  if (filter.q) query.whereRaw(`p.search @@ websearch_to_tsquery('english', ?)`, [filter.q]);
  if (filter.collectionId) {
    query.whereExists((sub) => sub.select(ctx.db.raw('1')).from('collectionProducts as cp').where({ 'cp.storeId': storeId, 'cp.collectionId': filter.collectionId! }).whereRaw('cp.product_id = p.id'));
  }
  return query;
}

export async function countBulkTargets(ctx: AppContext, storeId: string, request: Omit<BulkRequest, 'action'>): Promise<number> {
  const [row] = (await matching(ctx, storeId, request).count('* as count')) as Array<{ count: string }>;
  return Number(row?.count ?? 0);
}

/**
 * `POST /admin/products/bulk`: with dryRun, how many products the request names (nothing changes);
 * otherwise a tracked job. A collection the action names must be the store's (404 before queuing).
 */
export async function startProductBulk(ctx: AppContext, tenant: Tenant, request: BulkRequest, dryRun: boolean) {
  const auditRequest = currentAuditRequest();
  const action = request.action;
  if (action.type === 'addToCollection' || action.type === 'removeFromCollection') {
    const collection = await ctx.db('collections').where({ storeId: tenant.storeId, id: action.collectionId }).first('id');
    if (!collection) throw notFound('Collection');
  }
  const count = await countBulkTargets(ctx, tenant.storeId, request);
  if (dryRun) return { dryRun: true as const, count, job: null };
  // Who asked and from where: each product's audit entry names them, not the worker.
  const audit: BulkAudit | undefined = auditRequest && { actor: auditRequest.actor, origin: { requestId: auditRequest.requestId, ip: auditRequest.ip, userAgent: auditRequest.userAgent } };
  const job = await createJob(ctx, { storeId: tenant.storeId, kind: productsBulkJob, input: { ...request, count, ...(audit ? { audit } : {}) }, createdBy: tenant.userId });
  return { dryRun: false as const, count, job };
}

/** The new price: `whole` rounds to a whole unit, `ninety_nine` to the smallest price ending in 99 minor units at or above it (9.00 -> 9.99, 8.50 -> 8.99). */
function priceSql(action: Extract<BulkAction, { type: 'changePrice' }>, digits: number, column: string): { sql: string; bindings: number[] } {
  const base =
    action.mode === 'set' ? '?::numeric' : action.mode === 'percent' ? `(${column}::numeric * (100 + ?::numeric) / 100)` : `(${column}::numeric + ?::numeric)`;
  const unit = 10 ** digits;
  const rounded =
    action.rounding === 'whole' ? `round(${base} / ${unit}) * ${unit}` : action.rounding === 'ninety_nine' ? `ceil((${base} + 1) / ${unit}) * ${unit} - 1` : `round(${base})`;
  return { sql: `greatest(0, ${rounded})::int`, bindings: [action.value] };
}

const VARIANTS_SQL = (fields: string) =>
  `(select coalesce(json_agg(json_build_object('id', v.id, ${fields}) order by v.position, v.id), '[]'::json) from product_variants v
     where v.store_id = p.store_id and v.product_id = p.id and v.archived_at is null) as variants`;

/** What an action can change of a product: the fields its audit entry compares before and after. */
function auditedFields(action: BulkAction): string {
  switch (action.type) {
    case 'setStatus':
      return 'p.status';
    case 'addTags':
    case 'removeTags':
      return 'p.tags';
    case 'addToCollection':
    case 'removeFromCollection':
      return `array(select cp.collection_id from collection_products cp where cp.store_id = p.store_id and cp.product_id = p.id order by cp.collection_id) as collection_ids`;
    case 'changePrice':
      return `p.min_price, p.max_price, ${VARIANTS_SQL(`'price', v.price`)}`;
    case 'setInventoryPolicy':
      return VARIANTS_SQL(`'inventoryPolicy', v.inventory_policy`);
    case 'adjustStock':
    case 'setStock':
      return VARIANTS_SQL(`'inventoryQuantity', v.inventory_quantity`);
    case 'delete':
      return 'p.title, p.slug, p.description, p.status, p.tags, p.options, p.seo';
  }
}

/**
 * The audited fields of the batch's products, their rows locked first (in id order) so that what
 * the entry calls "before" is what the action changed: an admin edit of one of them waits.
 */
async function auditedStates(trx: Transaction, storeId: string, ids: string[], action: BulkAction, lock: boolean): Promise<Map<string, Record<string, unknown>>> {
  const states = new Map<string, Record<string, unknown>>();
  if (!ids.length) return states;
  const result = (await trx.raw(
    `select p.id, ${auditedFields(action)} from products p where p.store_id = ? and p.id = any(?::uuid[]) order by p.id${lock ? (action.type === 'delete' ? ' for update of p' : ' for no key update of p') : ''}`,
    [storeId, ids]
  )) as { rows: Array<Record<string, unknown> & { id: string }> };
  for (const { id, ...state } of result.rows) states.set(id, state);
  return states;
}

/** One batch of products, in the job's transaction: returns how many changed, and problems per product. */
async function applyAction(
  ctx: AppContext,
  trx: Transaction,
  emit: EmitEvent,
  target: { storeId: string; jobId: string; userId: string | null; digits: number },
  action: BulkAction,
  ids: string[]
): Promise<{ changed: string[]; problems: Array<{ productId: string; message: string }> }> {
  const { storeId } = target;
  const problems: Array<{ productId: string; message: string }> = [];
  const rowsOf = (result: { rows: Array<{ id: string }> }) => result.rows.map((r) => r.id);
  const updatedProducts = async (sql: string, bindings: unknown[]) => rowsOf(await trx.raw(sql, bindings as never));
  let changed: string[] = [];
  const ledgerCte = `insert into inventory_ledger (store_id, variant_id, user_id, delta, reason, reason_code, actor, job_id, quantity_after)
         select ?, u.id, ?, u.delta, 'bulk edit', 'bulk', 'job', ?, u.inventory_quantity from up u where u.delta <> 0`;
  switch (action.type) {
    case 'setStatus':
      changed = await updatedProducts(`update products set status = ?, updated_at = now() where store_id = ? and id = any(?::uuid[]) and status <> ? returning id`, [action.status, storeId, ids, action.status]);
      break;
    case 'addTags':
      changed = await updatedProducts(
        `update products p set tags = p.tags || array(select t from unnest(?::text[]) t where not exists (select 1 from unnest(p.tags) e where lower(e) = lower(t))), updated_at = now()
          where p.store_id = ? and p.id = any(?::uuid[]) and exists (select 1 from unnest(?::text[]) t where not exists (select 1 from unnest(p.tags) e where lower(e) = lower(t))) returning p.id`,
        [action.tags, storeId, ids, action.tags]
      );
      break;
    case 'removeTags':
      changed = await updatedProducts(
        `update products p set tags = array(select e from unnest(p.tags) e where lower(e) <> all(?::text[])), updated_at = now()
          where p.store_id = ? and p.id = any(?::uuid[]) and exists (select 1 from unnest(p.tags) e where lower(e) = any(?::text[])) returning p.id`,
        [action.tags.map((t) => t.toLowerCase()), storeId, ids, action.tags.map((t) => t.toLowerCase())]
      );
      break;
    case 'addToCollection':
      changed = await updatedProducts(
        `insert into collection_products (store_id, collection_id, product_id, position)
         select ?, ?, t.id, coalesce((select max(position) from collection_products where store_id = ? and collection_id = ?), -1) + t.n
           from unnest(?::uuid[]) with ordinality as t(id, n)
         on conflict do nothing returning product_id as id`,
        [storeId, action.collectionId, storeId, action.collectionId, ids]
      );
      break;
    case 'removeFromCollection':
      changed = await updatedProducts(`delete from collection_products where store_id = ? and collection_id = ? and product_id = any(?::uuid[]) returning product_id as id`, [storeId, action.collectionId, ids]);
      break;
    case 'changePrice': {
      const price = priceSql(action, target.digits, 'v.price');
      const variants = await trx.raw(
        `update product_variants v set price = ${price.sql}, updated_at = now()
          where v.store_id = ? and v.product_id = any(?::uuid[]) and v.archived_at is null and v.price <> ${price.sql}
          returning v.product_id as id`,
        [...price.bindings, storeId, ids, ...price.bindings] as never
      );
      changed = [...new Set(rowsOf(variants))];
      if (changed.length) {
        await trx.raw(
          `update products p set min_price = r.min_price, max_price = r.max_price, updated_at = now()
             from (select product_id, min(price) as min_price, max(price) as max_price from product_variants
                    where store_id = ? and product_id = any(?::uuid[]) and archived_at is null group by product_id) r
            where p.store_id = ? and p.id = r.product_id`,
          [storeId, changed, storeId]
        );
      }
      break;
    }
    case 'setInventoryPolicy': {
      const refused = await trx.raw(
        `select distinct product_id as id from product_variants where store_id = ? and product_id = any(?::uuid[]) and archived_at is null and ? = 'deny' and inventory_quantity < 0`,
        [storeId, ids, action.policy]
      );
      for (const id of rowsOf(refused)) problems.push({ productId: id, message: 'a variant has negative stock: deny needs stock of zero or more' });
      changed = [
        ...new Set(
          rowsOf(
            await trx.raw(
              `update product_variants set inventory_policy = ?, updated_at = now()
                where store_id = ? and product_id = any(?::uuid[]) and archived_at is null and inventory_policy <> ? and not (product_id = any(?::uuid[]))
                returning product_id as id`,
              [action.policy, storeId, ids, action.policy, rowsOf(refused)]
            )
          )
        )
      ];
      break;
    }
    case 'adjustStock':
    case 'setStock': {
      const next = action.type === 'adjustStock' ? 'b.inventory_quantity + ?::int' : '?::int';
      const amount = action.type === 'adjustStock' ? action.delta : action.quantity;
      // Locked in id order (the lock order of every stock move), then moved with their ledger rows in one statement.
      const result = await trx.raw(
        `with b as (
           select id, product_id, inventory_quantity, inventory_policy from product_variants
            where store_id = ? and product_id = any(?::uuid[]) and archived_at is null order by id for no key update
         ), up as (
           update product_variants v set inventory_quantity = ${next}, updated_at = now()
             from b where v.store_id = ? and v.id = b.id and ${next} <> b.inventory_quantity
              and (b.inventory_policy = 'continue' or ${next} >= 0) and abs(${next}::bigint) <= 1000000000
           returning v.id, v.product_id, v.inventory_quantity, v.inventory_quantity - b.inventory_quantity as delta
         ), l as (${ledgerCte})
         select (select coalesce(json_agg(json_build_object('id', id, 'productId', product_id)), '[]') from up) as moved,
                (select coalesce(json_agg(distinct b.product_id), '[]') from b where b.id not in (select id from up)
                   and ${next} <> b.inventory_quantity) as refused`,
        [storeId, ids, amount, storeId, amount, amount, amount, storeId, target.userId, target.jobId, amount] as never
      );
      const row = result.rows[0] as { moved: Array<{ id: string; productId: string }>; refused: string[] };
      for (const id of row.refused) problems.push({ productId: id, message: 'the stock would go below zero on a deny variant' });
      changed = [...new Set(row.moved.map((m) => m.productId))];
      if (row.moved.length) emit({ type: 'inventory.changed', storeId, variantIds: row.moved.map((m) => m.id) });
      return { changed, problems };
    }
    case 'delete': {
      const variants = (await trx('productVariants').where({ storeId }).whereIn('productId', ids).orderBy('id').forUpdate().select('id', 'productId')) as Array<{ id: string; productId: string }>;
      const used = await variantsInUse(ctx, trx, storeId, variants.map((v) => v.id));
      const kept = new Set(variants.filter((v) => used.has(v.id)).map((v) => v.productId));
      for (const id of kept) problems.push({ productId: id, message: 'ordered or in an open checkout: archive it instead' });
      changed = rowsOf(await trx.raw(`delete from products where store_id = ? and id = any(?::uuid[]) and not (id = any(?::uuid[])) returning id`, [storeId, ids, [...kept]]));
      if (changed.length) emit({ type: 'product.changed', storeId, productIds: changed, change: 'deleted' });
      return { changed, problems };
    }
  }
  if (changed.length) emit({ type: 'product.changed', storeId, productIds: changed, change: 'updated' });
  return { changed, problems };
}

/**
 * The bulk job: the matching products by id, in batches; each batch's changes, events and the
 * checkpoint (the last id done) commit together, guarded on the previous checkpoint, so a retry
 * after a kill resumes past the committed batches and no product is changed twice (a +10 % price
 * change stays +10 %). A product an action cannot change (a deny variant going negative, an
 * ordered product on delete) is skipped and named in the result.
 */
export async function runProductBulk(ctx: AppContext, jobId: string, options: { signal?: AbortSignal; pacer?: BulkPacer; batchProducts?: number } = {}) {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`bulk job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result;
  const storeId = job.storeId;
  const request = job.input as unknown as BulkRequest & { count: number; audit?: BulkAudit };
  const store = (await ctx.db('stores').where({ id: storeId }).first('currency')) as { currency: string } | undefined;
  const digits = currencyDigits(store?.currency ?? 'USD');
  const actor: AuditActor = request.audit?.actor ?? (job.createdBy ? { type: 'user', userId: job.createdBy } : { type: 'system', name: 'products.bulk' });
  const origin: AuditOrigin = request.audit?.origin ?? { requestId: null, ip: null, userAgent: null };
  let checkpoint: BulkCheckpoint = (job.checkpoint as unknown as BulkCheckpoint | null)?.problems
    ? (job.checkpoint as unknown as BulkCheckpoint)
    : { afterId: null, matched: 0, changed: 0, skipped: 0, problems: [] };
  // Yields the machine to requests while it is busy (BULK_JOB_BUSY_PERCENT; platform/bulk-pacing.ts).
  const pacer = options.pacer ?? new BulkPacer({ busyPercent: ctx.config.bulkJobBusyPercent });
  for (;;) {
    if (options.signal?.aborted) throw new Error('bulk job aborted');
    pacer.begin();
    const query = matching(ctx, storeId, request).orderBy('p.id').limit(options.batchProducts ?? BATCH).select('p.id');
    if (checkpoint.afterId) query.where('p.id', '>', checkpoint.afterId);
    const ids = ((await query) as Array<{ id: string }>).map((r) => r.id);
    if (!ids.length) break;
    const previous = checkpoint;
    checkpoint = await withTransaction(ctx, async (trx, emit) => {
      const before = await auditedStates(trx, storeId, ids, request.action, true);
      const { changed, problems } = await withDeferredStorefrontRefresh(trx, () =>
        applyAction(ctx, trx, emit, { storeId, jobId, userId: job.createdBy ?? null, digits }, request.action, ids)
      );
      // One audit entry per product changed, in the transaction of the change.
      const deleted = request.action.type === 'delete';
      const after = deleted ? new Map<string, Record<string, unknown>>() : await auditedStates(trx, storeId, changed, request.action, false);
      await recordAudits(
        ctx,
        trx,
        changed.map((productId) => ({
          storeId,
          action: deleted ? 'product.deleted' : 'product.updated',
          resourceType: 'product',
          resourceId: productId,
          before: before.get(productId) ?? null,
          after: deleted ? null : after.get(productId) ?? null,
          actor,
          origin
        }))
      );
      const next: BulkCheckpoint = {
        afterId: ids[ids.length - 1]!,
        matched: previous.matched + ids.length,
        changed: previous.changed + changed.length,
        skipped: previous.skipped + problems.length,
        problems: [...previous.problems, ...problems].slice(0, MAX_REPORTED)
      };
      const percent = request.count ? Math.min(99, Math.floor((next.matched / request.count) * 100)) : 99;
      const saved = await saveJobProgressFrom(trx, jobId, { key: 'afterId', expected: previous.afterId }, { checkpoint: next, progress: { percent, processedRows: next.matched } });
      if (!saved) throw new Error('another worker is running this bulk job');
      return next;
    });
    await pacer.end(options.signal);
  }
  const result = { action: request.action.type, matched: checkpoint.matched, changed: checkpoint.changed, skipped: checkpoint.skipped, problems: checkpoint.problems };
  await completeJob(ctx, jobId, result as unknown as Record<string, unknown>);
  return result;
}
