import Joi from 'joi';
import type { StripeCharge, StripeEvent, StripePaymentIntent } from '../adapters/payments/index.js';
import type { AppContext } from '../context.js';
import { confirmCheckoutSession } from './confirm-checkout.js';
import { reactInTransaction } from '../platform/events/domain-events.js';
import { moveOrderPayment, WEBHOOK } from '../services/orders/index.js';
import { reconcileStripeRefund } from './refund-order.js';
import { applied, decidePayment, type EventOutcome, ignored, INTENT_EVENT_STATES, type IntentEventType, type PaymentFact, type PaymentState } from '../services/payments/index.js';
import { lockSessionPayment, setSessionPaymentStatus } from '../services/checkout/index.js';
import { orderOfBalancePayment } from '../services/draft-orders/index.js';
import { withTransaction } from '../platform/with-transaction.js';
import type { Sql, Transaction } from '../db/transaction.js';

/**
 * PaymentIntent and charge events. A signed event is Stripe's word, but any connected account's
 * events reach the platform's endpoint: one acts only when it was sent for the store's own
 * connected account and its amount and currency are the checkout's. Every status change then goes
 * through the payment state machine, so events arriving late or out of order never move a payment back.
 */

const stripeId = Joi.string().max(255);
const intentObject = Joi.object({
  id: stripeId.required(),
  amount: Joi.number().integer().min(0).required(),
  currency: Joi.string().max(10).required(),
  status: Joi.string().max(64).required(),
  metadata: Joi.object().pattern(Joi.string(), Joi.string().allow('')).allow(null)
}).unknown(true);
const chargeObject = Joi.object({
  id: stripeId.required(),
  amount: Joi.number().integer().min(0).required(),
  currency: Joi.string().max(10).required(),
  amount_refunded: Joi.number().integer().min(0).required(),
  refunded: Joi.boolean(),
  payment_intent: Joi.alternatives(stripeId, Joi.object({ id: stripeId.required() }).unknown(true)).allow(null)
}).unknown(true);

const refundObject = Joi.object({
  id: stripeId.required(),
  amount: Joi.number().integer().min(1).required(),
  currency: Joi.string().max(10).required(),
  status: Joi.string().max(64).allow(null).required(),
  payment_intent: Joi.alternatives(stripeId, Joi.object({ id: stripeId.required() }).unknown(true)).allow(null),
  metadata: Joi.object().pattern(Joi.string(), Joi.string().allow('')).allow(null)
}).unknown(true);


interface SessionRef {
  id: string;
  storeId: string;
  amount: string | number;
  currency: string;
  paymentIntentId: string | null;
  orderId: string | null;
  paymentStatus: PaymentState;
}

const SESSION_REF = ['id', 'storeId', 'amount', 'currency', 'paymentIntentId', 'orderId', 'paymentStatus'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function sessionForIntent(ctx: AppContext, intent: StripePaymentIntent): Promise<SessionRef | undefined> {
  const byIntent = await ctx.db('checkoutSessions').comment('cross-store: stripe payment intent').where({ paymentIntentId: intent.id }).first(SESSION_REF);
  if (byIntent) return byIntent;
  // The session is given its PaymentIntent right after Stripe made it; until then the metadata names it.
  const sessionId = intent.metadata?.checkoutSessionId;
  const storeId = intent.metadata?.storeId;
  if (!sessionId || !storeId || !UUID.test(sessionId) || !UUID.test(storeId)) return undefined;
  return ctx.db('checkoutSessions').where({ id: sessionId, storeId }).first(SESSION_REF);
}

const connectedAccountOf = async (db: Sql, storeId: string): Promise<string | null> =>
  ((await db('storePaymentAccounts').where({ storeId }).first('accountId')) as { accountId: string | null } | undefined)?.accountId ?? null;

/** Why an event about this store's payment cannot be trusted to change it, or null. */
export async function distrust(
  ctx: AppContext,
  event: StripeEvent,
  storeId: string,
  what: string,
  paid: { amount: number; currency: string },
  expected: { amount: number; currency: string }
): Promise<string | null> {
  const accountId = await connectedAccountOf(ctx.db, storeId);
  if (!accountId) return 'the store has no connected Stripe account';
  if (event.account !== accountId) return `sent for ${event.account ? `account ${event.account}` : 'the platform account'}, not the store's connected account`;
  if (paid.amount !== expected.amount) return `amount ${paid.amount} does not match the ${what}'s ${expected.amount}`;
  if (paid.currency.toLowerCase() !== expected.currency.toLowerCase()) return `currency ${paid.currency} does not match the ${what}'s ${expected.currency.toLowerCase()}`;
  return null;
}

const factOf = (event: StripeEvent, state: PaymentState, amountRefunded?: number): PaymentFact => ({
  state,
  created: new Date(event.created * 1000),
  ...(amountRefunded === undefined ? {} : { amountRefunded })
});

/** A PaymentIntent event: authorised or paid makes the order (the shopper's confirm path), failed or canceled marks the payment. */
export async function onPaymentIntentEvent(ctx: AppContext, event: StripeEvent, type: IntentEventType): Promise<EventOutcome> {
  const { value, error } = intentObject.validate(event.data.object);
  if (error) return ignored(`malformed payment_intent: ${error.message}`);
  const intent = value as StripePaymentIntent;
  // Sent also when the capturable amount changes otherwise: only a PaymentIntent awaiting capture is authorised.
  if (type === 'payment_intent.amount_capturable_updated' && intent.status !== 'requires_capture') {
    return ignored(`the PaymentIntent is ${intent.status}, not requires_capture`);
  }
  const session = await sessionForIntent(ctx, intent);
  if (!session) return ignored('no checkout session for this PaymentIntent');
  if (session.paymentIntentId && session.paymentIntentId !== intent.id) return ignored('the checkout session pays through another PaymentIntent');
  const untrusted = await distrust(ctx, event, session.storeId, 'checkout session', intent, { amount: Number(session.amount), currency: session.currency });
  if (untrusted) return ignored(untrusted);

  const fact = factOf(event, INTENT_EVENT_STATES[type]);
  if ((fact.state === 'paid' || fact.state === 'authorized') && !session.orderId) {
    // A payment the session has already seen voided makes no order; otherwise the order is made
    // through the shopper's confirm path (the session lock makes one order whoever comes first).
    const early = decidePayment({ state: session.paymentStatus, amountRefunded: 0, lastEventCreated: null }, fact);
    if (!early.apply) return ignored(`checkout session: ${early.reason}`);
    await confirmCheckoutSession(ctx, session.storeId, session.id, { paymentVerified: fact.state });
  }
  return withTransaction(ctx, (trx) => applyToSessionPayment(ctx, trx, session, fact, event.id));
}

export interface PaidOrder {
  id: string;
  storeId: string;
  number: number;
  total: string | number;
  currency: string;
  /** Set when the PaymentIntent paid a balance of the order (an edit's link), not the order itself: what it paid. */
  balance: { amount: number } | null;
}

/** The order a PaymentIntent paid: its own (the first payment), or one whose balance it paid by link. */
export async function orderPaidBy(ctx: AppContext, intentId: string): Promise<PaidOrder | undefined> {
  const own = (await ctx.db('orders').comment('cross-store: stripe payment intent').where({ paymentIntentId: intentId }).first('id', 'storeId', 'number', 'total', 'currency')) as
    | Omit<PaidOrder, 'balance'>
    | undefined;
  if (own) return { ...own, balance: null };
  const balance = await orderOfBalancePayment(ctx.db, intentId);
  if (!balance) return undefined;
  const order = (await ctx.db('orders').where({ storeId: balance.storeId, id: balance.orderId }).first('id', 'storeId', 'number', 'total', 'currency')) as Omit<PaidOrder, 'balance'> | undefined;
  return order ? { ...order, balance: { amount: balance.amount } } : undefined;
}

/**
 * `charge.refunded`: the order's payment becomes partially refunded or refunded, with the amount.
 * A balance payment's charge says nothing of the order's whole (its amounts are the balance's own):
 * only the refunds it lists are recorded, as their own events would.
 */
export async function onChargeRefunded(ctx: AppContext, event: StripeEvent): Promise<EventOutcome> {
  const { value, error } = chargeObject.validate(event.data.object);
  if (error) return ignored(`malformed charge: ${error.message}`);
  const charge = value as StripeCharge;
  const intentId = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
  if (!intentId) return ignored('the charge has no PaymentIntent');
  const order = await orderPaidBy(ctx, intentId);
  if (!order) return ignored("no order for this charge's PaymentIntent");
  const untrusted = await distrust(ctx, event, order.storeId, 'order', charge, { amount: order.balance ? order.balance.amount : Number(order.total), currency: order.currency });
  if (untrusted) return ignored(untrusted);
  if (charge.amount_refunded <= 0 && !charge.refunded) return ignored('nothing refunded');
  let outcome: EventOutcome = ignored("a balance payment's charge: its listed refunds are recorded, the order's payment moves with them");
  if (!order.balance) {
    const full = charge.refunded || charge.amount_refunded >= charge.amount;
    const fact = factOf(event, full ? 'refunded' : 'partially_refunded', full ? Number(order.total) : charge.amount_refunded);
    outcome = await withTransaction(ctx, (trx) => applyToOrderPayment(ctx, trx, order.storeId, order.id, fact, event.id));
  }
  // A charge that lists its refunds (expanded) records each, once, as the refund events do.
  const listed = (charge as { refunds?: { data?: unknown[] } }).refunds?.data ?? [];
  for (const item of listed) {
    const { value: refund, error: invalid } = refundObject.validate(item);
    if (!invalid) await reconcileStripeRefund(ctx, order.storeId, order.id, { ...refund, paymentIntentId: intentId });
  }
  return outcome;
}

/**
 * A refund event (`refund.created`, `refund.updated`, `charge.refund.updated`): the refund-order
 * use case reconciles it with the order's refunds, so a refund made in Stripe's dashboard appears once and
 * one this API asked for settles (or is released if it failed).
 */
export async function onRefundEvent(ctx: AppContext, event: StripeEvent): Promise<EventOutcome> {
  const { value, error } = refundObject.validate(event.data.object);
  if (error) return ignored(`malformed refund: ${error.message}`);
  const refund = value as { id: string; amount: number; currency: string; status: string | null; payment_intent?: string | { id: string } | null; metadata?: Record<string, string> | null };
  const intentId = typeof refund.payment_intent === 'string' ? refund.payment_intent : refund.payment_intent?.id;
  if (!intentId) return ignored('the refund has no PaymentIntent');
  const order = await orderPaidBy(ctx, intentId);
  if (!order) return ignored("no order for this refund's PaymentIntent");
  const untrusted = await distrust(ctx, event, order.storeId, 'order', { amount: 0, currency: refund.currency }, { amount: 0, currency: order.currency });
  if (untrusted) return ignored(untrusted);
  if (refund.amount > Number(order.total)) return ignored(`refund of ${refund.amount} exceeds the order's ${order.total}`);
  const result = await reconcileStripeRefund(ctx, order.storeId, order.id, { ...refund, paymentIntentId: intentId });
  return result.changed ? applied(result.outcome) : ignored(result.outcome);
}

/** The session's payment, under its row lock: its order's once it has one, else the session's own status. */
async function applyToSessionPayment(ctx: AppContext, trx: Transaction, ref: SessionRef, fact: PaymentFact, eventId: string): Promise<EventOutcome> {
  const session = await lockSessionPayment(trx, ref.storeId, ref.id);
  if (!session) return ignored('the checkout session is gone');
  if (session.orderId) return applyToOrderPayment(ctx, trx, ref.storeId, session.orderId, fact, eventId);
  const decision = decidePayment({ state: session.paymentStatus, amountRefunded: 0, lastEventCreated: null }, fact);
  if (!decision.apply) return ignored(`checkout session: ${decision.reason}`);
  if (decision.changed) await setSessionPaymentStatus(trx, ref.storeId, ref.id, decision.state);
  return applied(`checkout session payment ${decision.changed ? '' : 'already '}${decision.state}`);
}

/** One order's payment: the orders module moves it (state machine, revenue, customer, timeline). */
/** The webhook topic a payment change is (order.paid, order.refunded), if any. */
const TOPIC_OF: Partial<Record<PaymentState, 'paid' | 'refunded'>> = { paid: 'paid', partially_refunded: 'refunded', refunded: 'refunded' };

async function applyToOrderPayment(ctx: AppContext, trx: Transaction, storeId: string, orderId: string, fact: PaymentFact, eventId: string): Promise<EventOutcome> {
  const move = await moveOrderPayment(
    trx,
    storeId,
    orderId,
    { state: fact.state, ...(fact.amountRefunded === undefined ? {} : { amountRefunded: fact.amountRefunded }) },
    { eventId, created: fact.created, actor: WEBHOOK }
  );
  if (!move.applied) return ignored(move.reason);
  const change = TOPIC_OF[move.state];
  if (move.changed && change) await reactInTransaction(ctx, trx, [{ type: 'order.changed', storeId, orderId, change }]);
  return applied(`order #${move.order.number} ${move.changed ? '' : 'already '}${move.state}`);
}
