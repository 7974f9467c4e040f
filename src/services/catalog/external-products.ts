import type { EmitEvent } from '../events/domain-events.js';
import { withTransaction } from '../with-transaction.js';
import type { Transaction } from '../../db/transaction.js';

/** An external system's product as the sync hands it over: checked, trimmed, deduplicated. */
export interface ExternalProductRow {
  externalId: string;
  title: string;
  slug: string;
  description: string;
  sku: string | null;
  price: number;
  inventory: number;
  /** ISO time of the external record's last change. */
  updatedAt: string;
}

/**
 * A page of external products into the catalog, by external id: a product with one default
 * variant each. Rows whose `updatedAt` did not move are left alone, so a repeat changes nothing.
 * A SKU some other variant of the store already uses is dropped rather than failing the page.
 * Emits `product.changed` for what changed, as an admin edit does: storefront caches and ETags
 * move once the caller's transaction commits (see withTransaction).
 */
export async function upsertExternalProducts(trx: Transaction, emit: EmitEvent, storeId: string, rows: ExternalProductRow[]): Promise<number> {
  if (!rows.length) return 0;
  const result = await trx.raw(
    `with input as (
       select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::timestamptz[])
         as t(external_id, title, slug, description, sku, price, inventory, updated_at)
     ), changed as (
       insert into products as p (store_id, external_id, title, slug, description, status, min_price, max_price, external_updated_at)
       select ?, external_id, title, slug, description, 'active', price, price, updated_at from input
       on conflict (store_id, external_id) where external_id is not null do update
         set title = excluded.title, description = excluded.description, min_price = excluded.min_price,
             max_price = excluded.max_price, external_updated_at = excluded.external_updated_at, updated_at = now()
         where p.external_updated_at is distinct from excluded.external_updated_at
       returning p.id, p.external_id
     ), variant_input as (
       select c.id as product_id, i.external_id, i.price, i.inventory,
              case when i.sku is null
                     or row_number() over (partition by lower(i.sku) order by i.external_id) > 1
                     or exists (select 1 from product_variants o
                                 where o.store_id = ? and lower(o.sku) = lower(i.sku) and o.archived_at is null
                                   and o.external_id is distinct from i.external_id)
                   then null else i.sku end as sku
         from changed c join input i on i.external_id = c.external_id
     ), stock_before as (
       -- The statement's snapshot: stock as it was before this page, for the ledger's sync rows.
       select b.id, b.inventory_quantity from product_variants b
        where b.store_id = ? and b.external_id in (select external_id from variant_input)
     ), variants as (
       insert into product_variants as v (store_id, product_id, external_id, sku, title, price, inventory_quantity, inventory_policy, position)
       select ?, product_id, external_id, sku, 'Default', price, inventory, 'deny', 0 from variant_input
       on conflict (store_id, external_id) where external_id is not null do update
         set sku = excluded.sku, price = excluded.price, inventory_quantity = excluded.inventory_quantity, updated_at = now()
       returning v.id, v.inventory_quantity
     ), ledger as (
       insert into inventory_ledger (store_id, variant_id, delta, reason, reason_code, actor, quantity_after)
       select ?, v.id, v.inventory_quantity - coalesce(b.inventory_quantity, 0), 'external system sync', 'sync', 'system', v.inventory_quantity
         from variants v left join stock_before b on b.id = v.id
        where v.inventory_quantity <> coalesce(b.inventory_quantity, 0)
     )
     select coalesce((select array_agg(id)::text[] from changed), '{}') as changed_ids, (select count(*) from variants) as variants`,
    [
      rows.map((r) => r.externalId),
      rows.map((r) => r.title),
      rows.map((r) => r.slug),
      rows.map((r) => r.description),
      rows.map((r) => r.sku),
      rows.map((r) => r.price),
      rows.map((r) => r.inventory),
      rows.map((r) => r.updatedAt),
      storeId,
      storeId,
      storeId,
      storeId,
      storeId
    ] as any[]
  );
  const changedIds: string[] = result.rows[0].changedIds;
  if (changedIds.length) emit({ type: 'product.changed', storeId, productIds: changedIds });
  return changedIds.length;
}
