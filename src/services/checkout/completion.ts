import type { Sql } from '../../db/transaction.js';
import { defineStatement, runStatement } from '../../db/prepared-statements.js';
import { notFound } from '../../errors.js';
import { CONVERT_HOLDS_SQL } from '../catalog/index.js';
import { UPSERT_CUSTOMER_SQL, type customerBindings } from '../customers/index.js';
import { SESSION_COLUMNS, type SessionRow } from './sessions.js';

/*
 * The checkout's statements of a confirm (src/use-cases/confirm-checkout.ts runs them in its
 * transaction): the session locked after its cart, then completed with its cart in one statement.
 */

const LOCK_SESSION_AND_CART = defineStatement(`select c.status as cart_status, ${SESSION_COLUMNS.split(', ').map((column) => `s.${column}`).join(', ')}
  from checkout_sessions s join carts c on c.id = s.cart_id
 where s.id = :sessionId and s.store_id = :storeId
   for update of c, s`);

/**
 * The customer is made or counted (the customers module's upsert), the held stock becomes the
 * order's (the catalog's), the session and the cart complete: one statement (the session, cart and
 * reservation rows are all locked before it).
 */
const COMPLETE_SESSION = defineStatement(`with customer as (
     ${UPSERT_CUSTOMER_SQL}
   ), held as (
     ${CONVERT_HOLDS_SQL}
   ), session as (
     update checkout_sessions set status = 'completed', order_id = :orderId, payment_status = :sessionPaymentStatus, updated_at = now()
      where id = :sessionId returning 1
   ), cart as (
     update carts set status = 'completed', order_id = :orderId, updated_at = now() where id = :cartId returning 1
   )
   select id, first_name, last_name from customer`);

/** The session, locked after its cart (the order every checkout path uses; a cart's sessions are deleted with it). */
export async function lockSessionAndCart(trx: Sql, storeId: string, sessionId: string): Promise<{ locked: SessionRow; cartStatus: string }> {
  const row = (await runStatement<SessionRow & { cartStatus: string }>(trx, LOCK_SESSION_AND_CART, { sessionId, storeId })).rows[0];
  if (!row) throw notFound('Checkout session');
  const { cartStatus, ...locked } = row;
  return { locked, cartStatus };
}

/** Completes the locked session and its cart for the order; returns the order's customer (made or counted). */
export async function completeSession(
  trx: Sql,
  customer: ReturnType<typeof customerBindings>,
  completion: { sessionId: string; orderId: string; sessionPaymentStatus: string; cartId: string }
): Promise<{ id: string; firstName: string | null; lastName: string | null }> {
  const completed = await runStatement<{ id: string; firstName: string | null; lastName: string | null }>(trx, COMPLETE_SESSION, { ...customer, ...completion });
  return completed.rows[0]!;
}
