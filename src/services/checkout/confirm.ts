import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import { invalidateStorefrontCatalog } from '../catalog/storefront-cache.js';
import { cartNotOpen } from '../carts/carts.js';
import { redeemDiscount } from '../carts/discount-rules.js';
import { enqueueEmail } from '../email/outbox.js';
import { insertOrder } from '../orders/create-order.js';
import { orderConfirmationEmail } from '../orders/notifications.js';
import { loadOrder } from '../orders/orders.js';
import { trackingUrlBase, trackingUrlFor } from '../orders/tracking-url.js';
import { PROVIDERS } from '../payments/providers.js';
import { cancelPendingSessions, reserveStock } from './reservations.js';
import { findSession, type SessionRow } from './sessions.js';

export const paymentNotCompleted = () =>
  conflict('payment_not_completed', 'The payment has not been completed yet', [{ path: 'payment', message: 'the provider has not captured or authorised the payment' }]);

export interface ConfirmOptions {
  /** The provider already told us the payment succeeded (a verified webhook): skip asking it again. */
  paymentVerified?: boolean;
}

interface Created {
  orderId: string;
  stockChanged: boolean;
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

  const created = await ctx.db.transaction((trx) => convert(ctx, trx, session, paymentStatus));
  if (created.stockChanged) await invalidateStorefrontCatalog(ctx, storeId);
  return orderResult(ctx, storeId, created.orderId);
}

async function convert(ctx: AppContext, trx: Knex.Transaction, session: SessionRow, paymentStatus: 'pending' | 'paid'): Promise<Created> {
  const { storeId } = session;
  // Lock order: cart, then session (the same order as cart changes and session creation).
  const cart = await trx('carts').where({ id: session.cartId, storeId }).forUpdate().first('id', 'status');
  const locked: SessionRow = await trx('checkoutSessions').where({ id: session.id }).forUpdate().first();
  if (locked.orderId) return { orderId: locked.orderId, stockChanged: false };
  if (!cart || cart.status !== 'open') throw cartNotOpen();

  let stockChanged = false;
  if (locked.status !== 'pending') {
    // Expired (its stock went back) or replaced by a newer session. A shopper who has paid, or
    // whose untouched session merely timed out, gets the stock again if it is still there.
    if (locked.status === 'cancelled' && paymentStatus !== 'paid') {
      throw conflict('conflict', 'This checkout session was replaced by a newer one', [{ path: 'sessionId', message: `session is ${locked.status}` }]);
    }
    await reserveStock(trx, storeId, locked.id, locked.snapshot.lines);
    if (locked.discountId) await redeemDiscount(trx, storeId, locked.discountId, locked.snapshot.subtotal);
    stockChanged = true;
  }

  const snapshot = locked.snapshot;
  const { order, items, customer } = await insertOrder(trx, {
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
    shippingAddress: locked.shippingAddress,
    billingAddress: locked.billingAddress,
    paymentProvider: locked.provider,
    paymentIntentId: locked.paymentIntentId,
    paymentStatus
  });
  await trx('stockReservations').where({ sessionId: locked.id, state: 'held' }).update({ state: 'converted' });
  await trx('checkoutSessions')
    .where({ id: locked.id })
    .update({ status: 'completed', orderId: order.id, paymentStatus: paymentStatus === 'paid' ? 'paid' : locked.paymentStatus, updatedAt: trx.fn.now() });
  await trx('carts').where({ id: cart.id }).update({ status: 'completed', orderId: order.id, updatedAt: trx.fn.now() });
  // Any other pending session of this cart gives its stock back now: the cart is sold.
  if (await cancelPendingSessions(trx, storeId, cart.id)) stockChanged = true;

  const store = await trx('stores').where({ id: storeId }).first('name');
  const trackingUrl = trackingUrlFor(await trackingUrlBase(ctx, trx, storeId), order.trackingToken);
  // The confirmation email commits with the order (outbox): no order without its email, no email without its order.
  await enqueueEmail(ctx, orderConfirmationEmail(store.name, order, items, customer, trackingUrl), { trx });
  return { orderId: order.id, stockChanged };
}

async function orderResult(ctx: AppContext, storeId: string, orderId: string) {
  const { dto } = await loadOrder(ctx, ctx.db, storeId, orderId);
  return { order: dto, trackingUrl: dto.trackingUrl };
}
