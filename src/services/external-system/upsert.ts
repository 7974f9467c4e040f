import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { ExternalCustomer, ExternalProduct } from './client.js';

export interface UpsertCounts {
  seen: number;
  changed: number;
  skipped: number;
}

const text = (value: unknown, max: number): string | null => (typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : null);
const stamp = (value: unknown): string | null => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null);

function slugFor(title: string, externalId: string): string {
  const base = title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'product';
  const suffix = createHash('sha1').update(externalId).digest('hex').slice(0, 8);
  return `${base}-${suffix}`;
}

/**
 * One page of external products into the catalog, by external id: a product with one default
 * variant each. Rows whose `updatedAt` did not move are left alone, so a repeat changes nothing.
 * A SKU some other variant of the store already uses is dropped rather than failing the page.
 */
export async function upsertProducts(trx: Knex.Transaction, storeId: string, items: ExternalProduct[]): Promise<UpsertCounts> {
  const seen = new Set<string>();
  const rows = [];
  for (const item of items) {
    const id = item && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : null;
    const title = text(item?.title, 500);
    const price = Number.isInteger(item?.price) && item.price >= 0 ? item.price : null;
    if (!id || !title || price === null || seen.has(id)) continue;
    seen.add(id);
    rows.push({
      id,
      title,
      slug: slugFor(title, id),
      description: text(item.description, 20_000) ?? '',
      sku: text(item.sku, 255),
      price,
      inventory: Number.isInteger(item.inventory) ? Math.max(0, item.inventory as number) : 0,
      updatedAt: stamp(item.updatedAt) ?? new Date(0).toISOString()
    });
  }
  const skipped = items.length - rows.length;
  if (!rows.length) return { seen: items.length, changed: 0, skipped };
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
     ), variants as (
       insert into product_variants as v (store_id, product_id, external_id, sku, title, price, inventory_quantity, inventory_policy, position)
       select ?, product_id, external_id, sku, 'Default', price, inventory, 'deny', 0 from variant_input
       on conflict (store_id, external_id) where external_id is not null do update
         set sku = excluded.sku, price = excluded.price, inventory_quantity = excluded.inventory_quantity, updated_at = now()
       returning v.id
     )
     select (select count(*) from changed) as changed, (select count(*) from variants) as variants`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.title),
      rows.map((r) => r.slug),
      rows.map((r) => r.description),
      rows.map((r) => r.sku),
      rows.map((r) => r.price),
      rows.map((r) => r.inventory),
      rows.map((r) => r.updatedAt),
      storeId,
      storeId,
      storeId
    ] as any[]
  );
  return { seen: items.length, changed: Number(result.rows[0].changed), skipped };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * One page of external customers, by external id. A customer already known by email (created here,
 * or imported) is linked to the external id rather than duplicated; an address linked to a
 * different external id is skipped. Consent only ever goes up: a new customer who accepts
 * marketing is subscribed, an existing `not_subscribed` one too, an unsubscribed one never.
 */
export async function upsertCustomers(trx: Knex.Transaction, storeId: string, items: ExternalCustomer[]): Promise<UpsertCounts> {
  const seenIds = new Set<string>();
  const seenEmails = new Set<string>();
  const rows = [];
  for (const item of items) {
    const id = item && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : null;
    const email = text(item?.email, 254)?.toLowerCase() ?? null;
    if (!id || !email || !EMAIL.test(email) || seenIds.has(id) || seenEmails.has(email)) continue;
    seenIds.add(id);
    seenEmails.add(email);
    rows.push({
      id,
      email,
      firstName: text(item.firstName, 100),
      lastName: text(item.lastName, 100),
      marketing: item.acceptsMarketing === true,
      updatedAt: stamp(item.updatedAt) ?? new Date(0).toISOString()
    });
  }
  const skipped = items.length - rows.length;
  if (!rows.length) return { seen: items.length, changed: 0, skipped };
  const params: any[] = [rows.map((r) => r.id), rows.map((r) => r.email), rows.map((r) => r.firstName), rows.map((r) => r.lastName), rows.map((r) => r.marketing), rows.map((r) => r.updatedAt)];
  const input = `select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[], ?::timestamptz[])
                   as t(external_id, email, first_name, last_name, accepts_marketing, updated_at)`;
  // Link customers we already have by email (no external id yet).
  await trx.raw(
    `update customers c set external_id = t.external_id from (${input}) t
      where c.store_id = ? and lower(c.email) = t.email and c.external_id is null
        and not exists (select 1 from customers x where x.store_id = ? and x.external_id = t.external_id)`,
    [...params, storeId, storeId]
  );
  const result = await trx.raw(
    `with changed as (
       insert into customers as c (store_id, external_id, email, first_name, last_name, email_marketing,
                                   email_marketing_updated_at, email_marketing_source, source, external_updated_at)
       select ?, t.external_id, t.email, t.first_name, t.last_name,
              case when t.accepts_marketing then 'subscribed' else 'not_subscribed' end,
              case when t.accepts_marketing then now() end,
              case when t.accepts_marketing then 'external_system' end,
              'external_system', t.updated_at
         from (${input}) t
        where not exists (select 1 from customers x
                           where x.store_id = ? and lower(x.email) = t.email
                             and x.external_id is distinct from t.external_id)
       on conflict (store_id, external_id) where external_id is not null do update
         set email = excluded.email, first_name = excluded.first_name, last_name = excluded.last_name,
             email_marketing = case when c.email_marketing = 'not_subscribed' and excluded.email_marketing = 'subscribed'
                                    then 'subscribed' else c.email_marketing end,
             email_marketing_updated_at = case when c.email_marketing = 'not_subscribed' and excluded.email_marketing = 'subscribed'
                                    then now() else c.email_marketing_updated_at end,
             email_marketing_source = case when c.email_marketing = 'not_subscribed' and excluded.email_marketing = 'subscribed'
                                    then 'external_system' else c.email_marketing_source end,
             external_updated_at = excluded.external_updated_at, updated_at = now()
         where c.external_updated_at is distinct from excluded.external_updated_at
       returning c.id
     )
     select count(*) as changed from changed`,
    [storeId, ...params, storeId]
  );
  return { seen: items.length, changed: Number(result.rows[0].changed), skipped: skipped };
}
