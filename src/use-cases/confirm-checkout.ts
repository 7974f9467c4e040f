import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/transaction.js';
import { runStatementsAndCommit } from '../db/prepared-statements.js';
import type { AppContext } from '../context.js';
import { conflict } from '../errors.js';
import { cancelPendingSessions, cartNotOpen, completeSession, lockSessionAndCart, reserveStock, stockChanged } from '../services/checkout/index.js';
import { redeemDiscount } from '../services/discounts/index.js';
import { emailInsert } from '../services/email/index.js';
import { customerBindings } from '../services/customers/index.js';
import { setOrderTaxTransaction } from '../services/orders/index.js';
import { taxProviderOf } from '../services/taxes/index.js';
import { draftOrderForEmail, ensureOrderNumberSequence, insertedOrder, loadOrder, type NewOrder, newTrackingToken, orderConfirmationEmail, orderDtoBeforeInsert, orderInsert, orderMailStore, toOrderDto, trackingUrlFor } from '../services/orders/index.js';
import { PROVIDERS, type PaymentCheck } from '../services/payments/index.js';
import { orderEventsCall } from '../services/webhooks/index.js';
import type { WebhookTopic } from '../services/webhooks/index.js';
import type { SessionRow } from '../services/checkout/index.js';
import { withTransaction } from '../platform/with-transaction.js';

export const paymentNotCompleted = () =>
  conflict('payment_not_completed', 'The payment has not been completed yet', [{ path: 'payment', message: 'the provider has not captured or authorised the payment' }]);

export interface ConfirmOptions {
  /** The provider already told us the payment is authorised or paid (a verified webhook): skip asking it again. */
  paymentVerified?: 'authorized' | 'paid';
}

type Created =
  | {
      kind: 'created' | 'existing';
      orderId: string;
      /** Variants that sold out or came back in this transaction (a re-taken reservation, other sessions released). */
      stockChanged: string[];
      /** The new order's DTO (a repeat confirm reloads it instead). */
      dto?: ReturnType<typeof toOrderDto>;
      /** A remote tax provider's calculation to record as a transaction now that the order is placed (Stripe Tax). */
      tax?: { provider: string; reference: string; number: number };
    }
  /** The provider must be asked over the network first: no row lock may be held meanwhile. */
  | { kind: 'ask-provider'; session: SessionRow };

/**
 * Turns a checkout session into an order, exactly once, whoever calls first: the shopper's
 * confirm (any number of times, concurrently) or the Stripe webhook. The cart and session row
 * locks decide; everyone after the winner finds `orderId` set and gets the same order. A provider
 * whose check needs the network (Stripe) is asked between two transactions, never under a lock.
 */
export async function confirmCheckoutSession(ctx: AppContext, storeId: string, sessionId: string, options: ConfirmOptions = {}) {
  const sequence = await ensureOrderNumberSequence(ctx.db, storeId);
  // Read before the transaction: a cache miss must not wait for a second pool connection while the transaction holds one.
  const store = await orderMailStore(ctx, storeId);
  let payment: PaymentCheck | undefined = options.paymentVerified ? { complete: true, paymentStatus: options.paymentVerified } : undefined;
  for (;;) {
    const known = payment;
    const created = await withTransaction(ctx, (trx) => convert(ctx, trx, storeId, sessionId, known, sequence, store), { pipelined: true });
    if (created.kind === 'ask-provider') {
      payment = await PROVIDERS[created.session.provider].check(ctx, created.session);
      if (!payment.complete) throw paymentNotCompleted();
      continue;
    }
    await stockChanged(ctx, storeId, created.stockChanged);
    if (created.tax) await recordTaxTransaction(ctx, storeId, created.orderId, created.tax);
    if (created.dto) return { order: created.dto, trackingUrl: created.dto.trackingUrl };
    return orderResult(ctx, storeId, created.orderId);
  }
}

async function convert(
  ctx: AppContext,
  trx: Sql,
  storeId: string,
  sessionId: string,
  known: PaymentCheck | undefined,
  sequence: string,
  store: { name: string; trackingBase: string }
): Promise<Created> {
  const { locked, cartStatus } = await lockSessionAndCart(trx, storeId, sessionId);
  if (locked.orderId) return { kind: 'existing', orderId: locked.orderId, stockChanged: [] };
  if (cartStatus !== 'open') throw cartNotOpen();
  const provider = PROVIDERS[locked.provider];
  if (!known && !provider.checkIsLocal) return { kind: 'ask-provider', session: locked };
  const check = known ?? (await provider.check(ctx, locked));
  if (!check.complete) throw paymentNotCompleted();
  const paymentStatus = check.paymentStatus;

  const changed: string[] = [];
  if (locked.status !== 'pending') {
    // Expired (its stock went back) or replaced by a newer session. A shopper who has paid, or
    // whose untouched session merely timed out, gets the stock again if it is still there.
    if (locked.status === 'cancelled' && paymentStatus === 'pending') {
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
    taxTotal: snapshot.taxTotal ?? 0,
    pricesIncludeTax: snapshot.pricesIncludeTax ?? false,
    shippingTaxLines: snapshot.shippingTaxLines ?? [],
    taxProvider: snapshot.taxProvider ?? null,
    taxReference: snapshot.taxReference ?? null,
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
  const customer = await completeSession(trx, customerBindings(newOrder), {
    sessionId: locked.id,
    orderId,
    sessionPaymentStatus: paymentStatus === 'pending' ? locked.paymentStatus : paymentStatus,
    cartId: locked.cartId
  });
  // Any other pending session of this cart gives its stock back now: the cart is sold. Only a
  // session that was no longer pending can have one (opening a session cancels the cart's others,
  // under the cart lock), so the usual confirm skips the look.
  if (locked.status !== 'pending') changed.push(...(await cancelPendingSessions(trx, storeId, locked.cartId)));

  // The confirmation email commits with the order (outbox): no order without its email, no email
  // without its order. It is written before the number exists; the order insert fills the number in.
  const trackingToken = newTrackingToken();
  const trackingUrl = trackingUrlFor(store.trackingBase, trackingToken);
  const draft = draftOrderForEmail(newOrder, orderId, trackingToken);
  const email = emailInsert(ctx, orderConfirmationEmail(store.name, draft.order, draft.items, { firstName: customer.firstName, lastName: customer.lastName }, trackingUrl));
  const keys = { orderId, customerId: customer.id, trackingToken, emailOutboxId: email.outboxId, itemIds: newOrder.lines.map(() => randomUUID()) };
  const order = orderInsert(newOrder, { ...keys, sequence });
  // Webhooks: order.created (and order.paid for an order placed paid), written with the order.
  const topics: WebhookTopic[] = paymentStatus === 'paid' ? ['order.created', 'order.paid'] : ['order.created'];
  const events = orderEventsCall(orderId, topics, orderDtoBeforeInsert(newOrder, keys, trackingUrl));
  // The email, the order, its webhook events and the COMMIT go out together: one round trip, and
  // the revenue shard the order insert locks is held for no longer than the commit takes.
  const [, inserted] = await runStatementsAndCommit(trx, [email.call, order, events]);
  const { order: row, items } = insertedOrder(inserted!);
  const tax = newOrder.taxProvider && newOrder.taxReference ? { provider: newOrder.taxProvider, reference: newOrder.taxReference, number: row.number } : undefined;
  return { kind: 'created', orderId: row.id, stockChanged: changed, dto: toOrderDto(row, items, [], trackingUrl), tax };
}

/**
 * The placed order's tax, recorded with the provider (Stripe Tax: a transaction from the session's
 * calculation), after the commit. The order stands either way: a failure is logged and the order
 * keeps no transaction id (docs/taxes.md: what is left).
 */
export async function recordTaxTransaction(ctx: AppContext, storeId: string, orderId: string, tax: { provider: string; reference: string; number: number }) {
  const provider = taxProviderOf(tax.provider);
  if (!provider.record) return;
  try {
    const transactionId = await provider.record(ctx, storeId, { id: orderId, number: tax.number, taxReference: tax.reference });
    if (transactionId) await setOrderTaxTransaction(ctx.db, storeId, orderId, transactionId);
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message }, storeId, orderId }, 'tax transaction not recorded');
  }
}

async function orderResult(ctx: AppContext, storeId: string, orderId: string) {
  const { dto } = await loadOrder(ctx, ctx.db, storeId, orderId);
  return { order: dto, trackingUrl: dto.trackingUrl };
}
