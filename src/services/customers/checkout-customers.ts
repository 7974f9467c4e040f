import type { Sql } from '../../db/transaction.js';
/*
 * The customer a checkout makes or counts: the customers module's statement, which the checkout
 * runs as a CTE of its own completing statement (src/use-cases/confirm-checkout.ts).
 */

/**
 * Creates or links the customer by email and counts the order on it: one upsert, so two first
 * orders of the same new email make one customer with ordersCount 2. An SQL fragment with named
 * bindings (customerBindings), returning `id, first_name, last_name`, for the caller to run as a
 * CTE of its own statement in its transaction (confirm runs it with the session's completion).
 */
export const UPSERT_CUSTOMER_SQL = `insert into customers (store_id, email, first_name, last_name, phone, orders_count, total_spent, last_order_at, source)
     values (:customerStoreId, :customerEmail, :customerFirstName, :customerLastName, :customerPhone, 1, :customerSpent, now(), 'checkout')
     on conflict (store_id, lower(email) text_pattern_ops) do update set
       orders_count = customers.orders_count + 1,
       total_spent = customers.total_spent + excluded.total_spent,
       last_order_at = excluded.last_order_at,
       first_name = coalesce(customers.first_name, excluded.first_name),
       last_name = coalesce(customers.last_name, excluded.last_name),
       phone = coalesce(customers.phone, excluded.phone),
       updated_at = now()
     returning id, first_name, last_name`;

export function customerBindings(order: { storeId: string; email: string; total: number; shippingAddress: Record<string, any> }) {
  const address = order.shippingAddress;
  return {
    customerStoreId: order.storeId,
    customerEmail: order.email,
    customerFirstName: address.firstName ?? null,
    customerLastName: address.lastName ?? null,
    customerPhone: address.phone ?? null,
    customerSpent: order.total
  };
}

/** The customer of an order made outside a checkout (a draft order): made, or counted, as a checkout's is. */
export async function upsertOrderCustomer(trx: Sql, bindings: ReturnType<typeof customerBindings>): Promise<{ id: string; firstName: string | null; lastName: string | null }> {
  const result = await trx.raw(UPSERT_CUSTOMER_SQL, bindings);
  return result.rows[0];
}
