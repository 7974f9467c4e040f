import { randomUUID } from 'node:crypto';
import { transaction, type Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import { cartNotOpen } from '../carts/carts.js';
import { redeemDiscount } from '../carts/discount-rules.js';
import { enqueueEmail } from '../email/outbox.js';
import { customerBindings, draftOrderForEmail, insertOrder, newTrackingToken, UPSERT_CUSTOMER_SQL, type NewOrder } from '../orders/create-order.js';
import { toOrderDto } from '../orders/dto.js';
import { ensureOrderNumberSequence } from '../orders/order-numbers.js';
import { orderConfirmationEmail } from '../orders/notifications.js';
import { loadOrder } from '../orders/orders.js';
import { orderMailStore, trackingUrlFor } from '../orders/tracking-url.js';
import { PROVIDERS } from '../payments/providers.js';
import { cancelPendingSessions, reserveStock, stockChanged } from './reservations.js';
import { findSession, SESSION_COLUMNS, type SessionRow } from './sessions.js';

export const paymentNotCompleted = () =>
  conflict('payment_not_completed', 'The payment has not been completed yet', [{ path: 'payment', message: 'the provider has not captured or authorised the payment' }]);

export interface ConfirmOptions {
  /** The provider already told us the payment succeeded (a verified webhook): skip asking it again. */
  paymentVerified?: boolean;
}

interface Created {
  orderId: string;
  /** Variants that sold out or came back in this transaction (a re-taken reservation, other sessions released). */
  stockChanged: string[];
  /** The new order's DTO (a repeat confirm reloads it instead). */
  dto?: ReturnType<typeof toOrderDto>;
}

/**
 * Turns a checkout session into an order, exactly once, whoever calls first: the shopper's
 * confirm (any number of times, concurrently) or the Stripe webhook. The session row lock decides;
 * everyone after the winner finds `orderId` set and gets the same order.
 */
export async function confirmCheckoutSession(ctx: AppContext, storeId: string, sessionId: string, options: ConfirmOptions = {}) {
  const session = await findSession(ctx, storeId, sessionId);
  if (session.orderId) return orderResult(ctx, storeId, session.orderId);
  let paymentStatus: 'pending' | 'paid' = 'paid';
  if (!options.paymentVerified) {
    const check = await PROVIDERS[session.provider].check(ctx, session);
    if (!check.complete) throw paymentNotCompleted();
    paymentStatus = check.paymentStatus;
  }

  const sequence = await ensureOrderNumberSequence(ctx.db, storeId);
  // Read before the transaction: a cache miss must not wait for a second pool connection while the transaction holds one.
  const store = await orderMailStore(ctx, storeId);
  const created = await transaction(ctx.db, (trx) => convert(ctx, trx, session, paymentStatus, sequence, store));
  await stockChanged(ctx, storeId, created.stockChanged);
  if (created.dto) return { order: created.dto, trackingUrl: created.dto.trackingUrl };
  return orderResult(ctx, storeId, created.orderId);
}

async function convert(
  ctx: AppContext,
  trx: Sql,
  session: SessionRow,
  paymentStatus: 'pending' | 'paid',
  sequence: string,
  store: { name: string; trackingBase: string }
): Promise<Created> {
  const { storeId } = session;
  // Lock order: cart, then session (the same order as cart changes and session creation).
  const cart = (await trx.raw('select id, status from carts where id = ? and store_id = ? for update', [session.cartId, storeId]).options(PREPARED)).rows[0] as
    | { id: string; status: string }
    | undefined;
  const locked = (await trx.raw(`select ${SESSION_COLUMNS} from checkout_sessions where id = ? for update`, [session.id]).options(PREPARED)).rows[0] as SessionRow;
  if (locked.orderId) return { orderId: locked.orderId, stockChanged: [] };
  if (!cart || cart.status !== 'open') throw cartNotOpen();

  const changed: string[] = [];
  if (locked.status !== 'pending') {
    // Expired (its stock went back) or replaced by a newer session. A shopper who has paid, or
    // whose untouched session merely timed out, gets the stock again if it is still there.
    if (locked.status === 'cancelled' && paymentStatus !== 'paid') {
      throw conflict('conflict', 'This checkout session was replaced by a newer one', [{ path: 'sessionId', message: `session is ${locked.status}` }]);
    }
    changed.push(...(await reserveStock(trx, storeId, locked.id, locked.snapshot.lines)));
    if (locked.discountId) await redeemDiscount(trx, storeId, locked.discountId, locked.snapshot.subtotal);
  }

  const snapshot = locked.snapshot;
  const newOrder: NewOrder = {
    storeId,
    checkoutSessionId: locked.id,
    email: locked.email,
    currency: locked.currency,
    lines: snapshot.lines,
    subtotal: snapshot.subtotal,
    discountTotal: snapshot.discountTotal,
    shippingTotal: snapshot.shippingTotal,
    total: snapshot.total,
    discountCode: snapshot.discountCode,
    shippingMethod: snapshot.shippingMethod,
    shippingAddress: locked.shippingAddress as unknown as Record<string, unknown>,
    billingAddress: locked.billingAddress as unknown as Record<string, unknown> | null,
    paymentProvider: locked.provider,
    paymentIntentId: locked.paymentIntentId,
    paymentStatus
  };
  // Everything but the numbered order first; the order, its items and a revenue shard go last, in
  // one statement, so rows shared with other checkouts are held only until the commit that follows.
  const orderId = randomUUID();
  // The customer is made or counted, the held stock becomes the order's, the session and the cart
  // complete: one statement (the session, cart and reservation rows are all locked above).
  const completed = await trx.raw(
    `with customer as (
       ${UPSERT_CUSTOMER_SQL}
     ), held as (
       update stock_reservations set state = 'converted' where session_id = :sessionId and state = 'held' returning 1
     ), session as (
       update checkout_sessions set status = 'completed', order_id = :orderId, payment_status = :sessionPaymentStatus, updated_at = now()
        where id = :sessionId returning 1
     ), cart as (
       update carts set status = 'completed', order_id = :orderId, updated_at = now() where id = :cartId returning 1
     )
     select id, first_name, last_name from customer`,
    { ...customerBindings(newOrder), sessionId: locked.id, orderId, sessionPaymentStatus: paymentStatus === 'paid' ? 'paid' : locked.paymentStatus, cartId: cart.id }
  ).options(PREPARED);
  const customer = completed.rows[0] as { id: string; firstName: string | null; lastName: string | null };
  // Any other pending session of this cart gives its stock back now: the cart is sold. Only a
  // session that was no longer pending can have one (opening a session cancels the cart's others,
  // under the cart lock), so the usual confirm skips the look.
  if (locked.status !== 'pending') changed.push(...(await cancelPendingSessions(trx, storeId, cart.id)));

  // The confirmation email commits with the order (outbox): no order without its email, no email
  // without its order. It is written before the number exists; the order insert fills the number in.
  const trackingToken = newTrackingToken();
  const trackingUrl = trackingUrlFor(store.trackingBase, trackingToken);
  const draft = draftOrderForEmail(newOrder, orderId, trackingToken);
  const email = await enqueueEmail(ctx, orderConfirmationEmail(store.name, draft.order, draft.items, { firstName: customer.firstName, lastName: customer.lastName }, trackingUrl), { trx });
  const { order, items } = await insertOrder(trx, newOrder, { orderId, customerId: customer.id, trackingToken, emailOutboxId: email.outboxId, sequence });
  return { orderId: order.id, stockChanged: changed, dto: toOrderDto(order, items, [], trackingUrl) };
}

async function orderResult(ctx: AppContext, storeId: string, orderId: string) {
  const { dto } = await loadOrder(ctx, ctx.db, storeId, orderId);
  return { order: dto, trackingUrl: dto.trackingUrl };
}
