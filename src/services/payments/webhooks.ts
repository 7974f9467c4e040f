import type Stripe from 'stripe';
import type { AppContext } from '../../context.js';
import { AppError, badRequest } from '../../errors.js';
import { stripeEventJob } from '../../jobs/stripe-event.js';
import { confirmCheckoutSession } from '../checkout/confirm.js';
import { raiseIssue } from '../issues/issues.js';
import { enqueueJob } from '../outbox/enqueue.js';
import { applyAccountUpdate } from './accounts.js';
import { subtractRevenue } from '../orders/create-order.js';
import type { Knex } from 'knex';
import { stripeClient } from './stripe-client.js';

export const HANDLED_EVENTS = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.refunded', 'account.updated'] as const;

/**
 * The receiver: verifies `Stripe-Signature` over the raw body, stores the event once by its id and
 * queues its processing (with a short delay, so the shopper's own confirm usually wins) in the
 * same transaction. A redelivery of a stored event is acknowledged and changes nothing.
 */
export async function receiveStripeEvent(ctx: AppContext, rawBody: Buffer, signature: string | undefined) {
  let event: Stripe.Event;
  try {
    if (!signature) throw new Error('missing Stripe-Signature');
    event = stripeClient(ctx).webhooks.constructEvent(rawBody, signature, ctx.config.stripeWebhookSecret);
  } catch (error) {
    throw badRequest('The Stripe signature does not match the body', [{ path: 'Stripe-Signature', message: (error as Error).message }]);
  }
  const handled = (HANDLED_EVENTS as readonly string[]).includes(event.type);
  const stored = await ctx.db.transaction(async (trx) => {
    const inserted = await trx('stripeEvents')
      .insert({
        id: event.id,
        type: event.type,
        accountId: event.account ?? null,
        payload: JSON.stringify(event),
        status: handled ? 'pending' : 'processed',
        processedAt: handled ? null : trx.fn.now()
      })
      .onConflict('id')
      .ignore()
      .returning('id');
    if (inserted.length && handled) {
      await enqueueJob(trx, stripeEventJob, { eventId: event.id }, { jobId: `stripe-event-${event.id}`, runAt: new Date(Date.now() + ctx.config.checkout.stripeWebhookDelayMs) });
    }
    return inserted.length > 0;
  });
  return { received: true, duplicate: !stored };
}

async function sessionForIntent(ctx: AppContext, intent: Stripe.PaymentIntent) {
  const byIntent = await ctx.db('checkoutSessions').where({ paymentIntentId: intent.id }).first('id', 'storeId');
  if (byIntent) return byIntent;
  const sessionId = intent.metadata?.checkoutSessionId;
  const storeId = intent.metadata?.storeId;
  if (!sessionId || !storeId || !/^[0-9a-f-]{36}$/i.test(sessionId)) return undefined;
  return ctx.db('checkoutSessions').where({ id: sessionId, storeId }).first('id', 'storeId');
}

async function onPaymentSucceeded(ctx: AppContext, intent: Stripe.PaymentIntent) {
  const session = await sessionForIntent(ctx, intent);
  if (!session) return 'no checkout session for this payment';
  // The same path as the shopper's confirm: the session lock makes one order whoever comes first.
  const { order } = await confirmCheckoutSession(ctx, session.storeId, session.id, { paymentVerified: true });
  await ctx.db('orders').where({ id: order.id, paymentStatus: 'pending' }).update({ paymentStatus: 'paid', updatedAt: ctx.db.fn.now() });
  return `order ${order.number}`;
}

/** Moves orders to refunded/failed once, taking each out of its day's revenue in the same transaction. */
async function leaveRevenue(ctx: AppContext, query: Knex.QueryBuilder, status: 'refunded' | 'failed'): Promise<number> {
  return ctx.db.transaction(async (trx) => {
    const rows = (await query
      .clone()
      .transacting(trx)
      .whereNotIn('paymentStatus', ['refunded', 'failed'])
      .update({ paymentStatus: status, updatedAt: trx.fn.now() })
      .returning(['storeId', 'createdAt', 'total'])) as Array<{ storeId: string; createdAt: Date; total: number }>;
    for (const row of rows) await subtractRevenue(trx, row.storeId, row.createdAt, Number(row.total));
    return rows.length;
  });
}

async function onPaymentFailed(ctx: AppContext, intent: Stripe.PaymentIntent) {
  const session = await sessionForIntent(ctx, intent);
  if (!session) return 'no checkout session for this payment';
  await ctx.db('checkoutSessions').where({ id: session.id, status: 'pending' }).update({ paymentStatus: 'failed', updatedAt: ctx.db.fn.now() });
  await leaveRevenue(ctx, ctx.db('orders').where({ checkoutSessionId: session.id }), 'failed');
  return 'payment failed recorded';
}

async function onChargeRefunded(ctx: AppContext, charge: Stripe.Charge) {
  const intentId = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
  if (!intentId) return 'charge without payment intent';
  // Fully refunded only: a partial refund leaves the order paid.
  if (!charge.refunded && charge.amount_refunded < charge.amount) return 'partial refund';
  const updated = await leaveRevenue(ctx, ctx.db('orders').where({ paymentIntentId: intentId }), 'refunded');
  return updated ? 'order refunded' : 'no order for this charge';
}

/** The job's work: one stored event, processed once (a retry after success changes nothing). */
export async function processStripeEvent(ctx: AppContext, eventId: string) {
  const row = await ctx.db('stripeEvents').where({ id: eventId }).first();
  if (!row || row.status === 'processed') return { eventId, outcome: 'already processed' };
  await ctx.db('stripeEvents').where({ id: eventId }).update({ attempts: ctx.db.raw('attempts + 1') });
  const event = row.payload as Stripe.Event;
  let outcome = 'ignored';
  switch (event.type) {
    case 'payment_intent.succeeded':
      outcome = await onPaymentSucceeded(ctx, event.data.object);
      break;
    case 'payment_intent.payment_failed':
      outcome = await onPaymentFailed(ctx, event.data.object);
      break;
    case 'charge.refunded':
      outcome = await onChargeRefunded(ctx, event.data.object);
      break;
    case 'account.updated':
      outcome = (await applyAccountUpdate(ctx, event.data.object)) ? 'account updated' : 'unknown account';
      break;
  }
  await ctx.db('stripeEvents').where({ id: eventId }).update({ status: 'processed', processedAt: ctx.db.fn.now(), error: null });
  return { eventId, outcome };
}

/** After the last retry: the event is marked failed and the store's operator sees an issue. */
export async function stripeEventFailedForGood(ctx: AppContext, eventId: string, error: unknown) {
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : (error as Error).message;
  await ctx.db('stripeEvents').where({ id: eventId }).update({ status: 'failed', error: message.slice(0, 2000) });
  const row = await ctx.db('stripeEvents').where({ id: eventId }).first('type', 'payload', 'accountId');
  const object = (row?.payload as Stripe.Event | undefined)?.data?.object as { metadata?: Record<string, string> } | undefined;
  let storeId = object?.metadata?.storeId;
  if (!storeId && row?.accountId) storeId = (await ctx.db('storePaymentAccounts').where({ accountId: row.accountId }).first('storeId'))?.storeId;
  if (!storeId || !/^[0-9a-f-]{36}$/i.test(storeId)) {
    ctx.log.error({ eventId, err: { message } }, 'stripe event failed for good and belongs to no known store');
    return;
  }
  await raiseIssue(ctx.db, {
    storeId,
    kind: 'stripe_webhook_failed',
    subject: eventId,
    severity: row?.type === 'payment_intent.succeeded' ? 'critical' : 'warning',
    title: `A Stripe ${row?.type ?? 'event'} could not be processed`,
    detail: `Event ${eventId}: ${message}. A paid payment may have no order; check the Stripe dashboard.`
  });
}
