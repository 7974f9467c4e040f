import type { Knex } from 'knex';
import type { PurchaseConditions, SqlCondition } from '../../platform/modules/contribution.js';

/**
 * Orders that are purchases: paid ones (also partly refunded) that were not cancelled. A pending
 * manual-payment order, an authorisation not yet captured, and failed, voided, refunded or
 * cancelled orders are not.
 */
export const PURCHASED_PAYMENT_STATUSES = ['paid', 'partially_refunded'];

/**
 * The orders module's answer to "who has bought": SQL conditions on a customer alias `c` (each
 * filter given narrows the audience), so other modules never read the order tables themselves.
 */
export function purchaseConditions(filters: PurchaseConditions): SqlCondition[] {
  const products = filters.purchasedProductIds ?? [];
  const collections = filters.purchasedCollectionIds ?? [];
  const purchased = (productCondition: string) => `exists (
      select 1 from orders o
      join order_items oi on oi.order_id = o.id and oi.store_id = o.store_id
      where o.store_id = c.store_id and o.customer_id = c.id
        and o.payment_status = any(?::text[]) and o.status <> 'cancelled'
        and ${productCondition})`;
  const conditions: SqlCondition[] = [];
  if (products.length) conditions.push({ sql: purchased('oi.product_id = any(?::uuid[])'), bindings: [PURCHASED_PAYMENT_STATUSES, products] });
  if (collections.length) {
    conditions.push({
      sql: purchased(`oi.product_id in (
          select cp.product_id from collection_products cp join collections col on col.id = cp.collection_id
          where col.store_id = c.store_id and cp.collection_id = any(?::uuid[]))`),
      bindings: [PURCHASED_PAYMENT_STATUSES, collections] as Knex.RawBinding[]
    });
  }
  return conditions;
}
