import type { Knex } from 'knex';

/**
 * "Has bought" audience filters, over the checkout module's `orders` and `order_items`. Every SQL
 * that reads those tables for marketing is here, in one place. Only orders whose payment went
 * through count as purchases.
 */
export const PURCHASED_PAYMENT_STATUSES = ['paid', 'authorized', 'partially_refunded'];

export interface PurchaseFilters {
  purchasedProductIds?: string[];
  purchasedCollectionIds?: string[];
}

let installed = false;

/** Whether the checkout module's tables are there yet (only "yes" is remembered: tables never vanish). */
async function ordersInstalled(db: Knex): Promise<boolean> {
  if (installed) return true;
  const result = await db.raw(`select to_regclass('public.orders') is not null and to_regclass('public.order_items') is not null as present`);
  installed = Boolean(result.rows[0]?.present);
  return installed;
}

export interface SqlFragment {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * SQL conditions on the customer alias `c`: bought any of the products, and bought any product of
 * the collections (each filter given narrows the audience). Before orders exist nobody has bought.
 */
export async function purchaseFilterConditions(db: Knex, filters: PurchaseFilters): Promise<SqlFragment[]> {
  const products = filters.purchasedProductIds ?? [];
  const collections = filters.purchasedCollectionIds ?? [];
  if (!products.length && !collections.length) return [];
  if (!(await ordersInstalled(db))) return [{ sql: 'false', bindings: [] }];
  const purchased = (productCondition: string) => `exists (
      select 1 from orders o
      join order_items oi on oi.order_id = o.id and oi.store_id = o.store_id
      where o.store_id = c.store_id and o.customer_id = c.id
        and o.payment_status = any(?::text[])
        and ${productCondition})`;
  const conditions: SqlFragment[] = [];
  if (products.length) conditions.push({ sql: purchased('oi.product_id = any(?::uuid[])'), bindings: [PURCHASED_PAYMENT_STATUSES, products] });
  if (collections.length) {
    conditions.push({
      sql: purchased(`oi.product_id in (
          select cp.product_id from collection_products cp join collections col on col.id = cp.collection_id
          where col.store_id = c.store_id and cp.collection_id = any(?::uuid[]))`),
      bindings: [PURCHASED_PAYMENT_STATUSES, collections]
    });
  }
  return conditions;
}
