import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { OrderItemRow, OrderRow } from './dto.js';

export const FIRST_ORDER_NUMBER = 1001;

export interface OrderSnapshotLine {
  variantId: string;
  productId: string;
  title: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
}

export interface NewOrder {
  storeId: string;
  checkoutSessionId: string;
  email: string;
  currency: string;
  lines: OrderSnapshotLine[];
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  total: number;
  discountCode: string | null;
  shippingMethod: { id: string; name: string; price: number } | null;
  shippingAddress: Record<string, any>;
  billingAddress: Record<string, any> | null;
  paymentProvider: string;
  paymentIntentId: string | null;
  paymentStatus: 'pending' | 'paid';
}

/**
 * Creates or links the customer by email and counts the order on it, in the caller's transaction:
 * one upsert, so two first orders of the same new email make one customer with ordersCount 2.
 */
async function upsertCustomer(trx: Knex.Transaction, order: NewOrder) {
  const address = order.shippingAddress;
  const result = await trx.raw(
    `insert into customers (store_id, email, first_name, last_name, phone, orders_count, total_spent, last_order_at, source)
     values (?, ?, ?, ?, ?, 1, ?, now(), 'checkout')
     on conflict (store_id, lower(email) text_pattern_ops) do update set
       orders_count = customers.orders_count + 1,
       total_spent = customers.total_spent + excluded.total_spent,
       last_order_at = excluded.last_order_at,
       first_name = coalesce(customers.first_name, excluded.first_name),
       last_name = coalesce(customers.last_name, excluded.last_name),
       phone = coalesce(customers.phone, excluded.phone),
       updated_at = now()
     returning id, first_name, last_name`,
    [order.storeId, order.email, address.firstName ?? null, address.lastName ?? null, address.phone ?? null, order.total]
  );
  return result.rows[0] as { id: string; first_name: string | null; last_name: string | null };
}

/** The store's next order number; the counter row stays locked until the caller commits. */
async function nextOrderNumber(trx: Knex.Transaction, storeId: string): Promise<number> {
  const result = await trx.raw(
    `insert into store_order_counters (store_id, last_number) values (?, ?)
     on conflict (store_id) do update set last_number = store_order_counters.last_number + 1
     returning last_number`,
    [storeId, FIRST_ORDER_NUMBER]
  );
  return result.rows[0].last_number as number;
}

/**
 * Inserts the order, its items and the customer link. The number is drawn last, so the per-store
 * counter lock is held only for the inserts that follow it.
 */
export async function insertOrder(trx: Knex.Transaction, order: NewOrder) {
  const customer = await upsertCustomer(trx, order);
  const number = await nextOrderNumber(trx, order.storeId);
  const [row] = (await trx('orders')
    .insert({
      storeId: order.storeId,
      number,
      customerId: customer.id,
      checkoutSessionId: order.checkoutSessionId,
      email: order.email,
      paymentStatus: order.paymentStatus,
      paymentProvider: order.paymentProvider,
      paymentIntentId: order.paymentIntentId,
      currency: order.currency,
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      shippingTotal: order.shippingTotal,
      total: order.total,
      discountCode: order.discountCode,
      shippingMethod: order.shippingMethod ? JSON.stringify(order.shippingMethod) : null,
      shippingAddress: JSON.stringify(order.shippingAddress),
      billingAddress: order.billingAddress ? JSON.stringify(order.billingAddress) : null,
      trackingToken: randomBytes(24).toString('base64url')
    })
    .returning('*')) as OrderRow[];
  const items = (await trx('orderItems')
    .insert(
      order.lines.map((line, position) => ({
        orderId: row!.id,
        storeId: order.storeId,
        productId: line.productId,
        variantId: line.variantId,
        title: line.title,
        sku: line.sku,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        lineTotal: line.lineTotal,
        position
      }))
    )
    .returning('*')) as OrderItemRow[];
  return { order: row!, items, customer: { id: customer.id, firstName: customer.first_name, lastName: customer.last_name } };
}
