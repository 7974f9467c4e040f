import type { AppContext } from '../context.js';
import { AppError, conflict, notFound } from '../errors.js';
import type { EmitEvent } from '../platform/events/domain-events.js';
import { withTransaction } from '../platform/with-transaction.js';
import { syncTaxWithProvider } from './tax-transactions.js';
import type { Transaction } from '../db/transaction.js';
import { recordAudit } from '../services/audit/index.js';
import { lockVariants } from '../services/catalog/index.js';
import { enqueueEmail } from '../services/email/index.js';
import {
  failPendingRefund,
  findOrder,
  findRefund,
  findReportedRefund,
  lockPendingRefund,
  noteRefundPart,
  noteRefundPartRefused,
  orderItemsOf,
  orderMailStore,
  orderRefundedEmail,
  recordOrderEvent,
  recordStripeRefund,
  refundAnswer,
  refundPartKey,
  refundRestockVariantIds,
  requestedRestockVariantIds,
  reserveRefund,
  settleRefund,
  stripeParts,
  trackingUrlFor,
  WEBHOOK,
  type Actor,
  type OrderRow,
  type RefundInput,
  type RefundRow,
  type ReportedRefund
} from '../services/orders/index.js';
import { refundStripePayment, stripeRefused } from '../services/payments/index.js';

type MailStore = { name: string; trackingBase: string };

/**
 * Refunds part or all of an order's payment. One transaction: the restocked variants locked (the
 * lock order of every stock move), then orders reserves the refund under the order's lock (so
 * concurrent refunds never add up to more than was paid); a manual order's refund is settled at
 * once, and the audit log records it. A Stripe order's refund is asked of payments after the commit
 * (never under a lock), on the store's connected account, with an idempotency key of the refund's
 * id and the application fee reversed in proportion, then settled (or released if Stripe refuses:
 * 502, or 409 refund_failed). `returnId` links a return's refund.
 */
export async function refundOrder(ctx: AppContext, storeId: string, orderId: string, input: RefundInput, actor: Actor, options: { returnId?: string } = {}) {
  const store = await orderMailStore(ctx, storeId);
  const variantIds = await requestedRestockVariantIds(ctx.db, storeId, orderId, input);
  const reserved = await withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, variantIds);
    const { refund, order, calculation } = await reserveRefund(trx, storeId, orderId, input, actor, options);
    // Settled now when no part of it goes through Stripe (a manual order's, of its first payment).
    if (!stripeParts(refund, order).length) await settle(ctx, trx, emit, store, refund, actor, null);
    await recordAudit(ctx, trx, {
      storeId,
      action: 'order.refunded',
      resourceType: 'order',
      resourceId: orderId,
      details: { refundId: refund.id, amount: Number(refund.amount), shipping: Number(refund.shipping), items: calculation.items, reason: input.reason ?? null, provider: order.paymentProvider }
    });
    return { refund, order };
  });

  if (stripeParts(reserved.refund, reserved.order).length) await refundThroughStripe(ctx, storeId, reserved.order, reserved.refund, actor);
  return answerRefund(ctx, storeId, orderId, reserved.refund.id);
}

/**
 * The refund as it now is, with its order; a refund that succeeded of an order whose tax the
 * provider records (Stripe Tax) reverses that much of its transaction (the refund stands either
 * way: a failed call is retried by the tax-sync job).
 */
async function answerRefund(ctx: AppContext, storeId: string, orderId: string, refundId: string) {
  const answer = await refundAnswer(ctx, storeId, orderId, refundId);
  if (answer.refund.status === 'succeeded') await syncTaxWithProvider(ctx, { storeId, orderId, refundId, amount: answer.refund.amount });
  return answer;
}

/**
 * A refund's Stripe parts asked of Stripe in turn (refund-payments.ts: newest payment first), each
 * with its own idempotency key derived from the refund's (refundPartKey:
 * `order-refund:<refund>:<PaymentIntent>`; a row from before parts were kept: `order-refund:<refund>`),
 * so a retry asks no payment twice; each part's Stripe refund is kept on the row, and the refund
 * settles once every part is accepted. A part Stripe already accepted is not asked again (a retry
 * of a refund left pending: retryRefund). Stripe refusing before any part was accepted releases the
 * refund (502, or 409 refund_failed); refusing a later one leaves it pending with the timeline
 * saying which part failed (the earlier parts are paid back: the money moved), counts the refusal
 * (the next ask takes a new key), and answers the same error. A failure that is not a certain
 * refusal (network, Stripe 5xx) releases nothing and counts nothing: the refund stays pending, the
 * same key asked again by a retry or Stripe's webhook for the refund settles it.
 */
export async function refundThroughStripe(ctx: AppContext, storeId: string, order: Pick<OrderRow, 'id' | 'paymentProvider' | 'paymentIntentId'>, refund: RefundRow, actor: Actor): Promise<void> {
  const parts = stripeParts(refund, order);
  let first: string | null = null;
  let accepted = 0;
  for (const [index, part] of parts.entries()) {
    if (part.stripeRefundId) {
      first ??= part.stripeRefundId;
      accepted += 1;
      continue;
    }
    try {
      const stripeRefund = await refundStripePayment(ctx, storeId, {
        paymentIntentId: part.paymentIntentId,
        amount: part.amount,
        metadata: { storeId, orderId: order.id, refundId: refund.id, part: `${index + 1}/${parts.length}` },
        idempotencyKey: refundPartKey(refund.id, part)
      });
      if (stripeRefund.status === 'failed' || stripeRefund.status === 'canceled') {
        throw conflict('refund_failed', `Stripe could not refund the payment (${stripeRefund.status})`, [{ path: 'amount', message: `refund ${stripeRefund.status}` }]);
      }
      if (!part.legacy) await noteRefundPart(ctx.db, storeId, refund.id, part.paymentIntentId!, stripeRefund.id);
      first ??= stripeRefund.id;
      accepted += 1;
    } catch (error) {
      const why = (error as Error).message;
      // Refused for certain (a failed refund, a 4xx about the request): nothing moved under this key.
      // Anything else (network, 5xx) may hide a refund Stripe made: the refund stays pending, and a
      // retry asks under the same key, which finds it.
      const refused = (error instanceof AppError && error.code === 'refund_failed') || stripeRefused(error);
      if (accepted === 0 && refused) await failPendingRefund(ctx, storeId, refund.id, actor, why);
      else {
        if (refused && !part.legacy) await noteRefundPartRefused(ctx.db, storeId, refund.id, part.paymentIntentId!, part.refusals ?? 0);
        await recordOrderEvent(ctx.db, storeId, order.id, 'refund_failed', actor, { refundId: refund.id, amount: part.amount, paymentIntentId: part.paymentIntentId, partsRefunded: accepted, retryable: true, error: why.slice(0, 500) });
      }
      throw error;
    }
  }
  await settlePendingRefund(ctx, storeId, refund.id, first!, actor);
}

/**
 * A refund left pending because Stripe refused one of its later parts (the earlier ones paid
 * back): its parts not yet accepted are asked again, each under a new key, and the refund settles
 * once all are (200 with the refund and its order). Anything but a pending refund of this order:
 * 404, or 409 refund_not_pending. Refused again: the same error as the refund's, and it stays
 * pending. Two retries at once share each part's key, so Stripe refunds a part once.
 */
export async function retryRefund(ctx: AppContext, storeId: string, orderId: string, refundId: string, actor: Actor) {
  const order = await findOrder(ctx, storeId, orderId);
  const refund = await findRefund(ctx.db, storeId, refundId);
  if (!refund || refund.orderId !== orderId) throw notFound('Refund');
  if (refund.status !== 'pending' || !stripeParts(refund, order).length) {
    throw conflict('refund_not_pending', `The refund is ${refund.status}: only a refund waiting on Stripe can be retried`, [{ path: 'refundId', message: `refund ${refund.status}` }]);
  }
  await refundThroughStripe(ctx, storeId, order, refund, actor);
  return answerRefund(ctx, storeId, orderId, refundId);
}

/** Orders settles the refund; the customer hears of it (order_refunded) when the refund asked so. */
async function settle(ctx: AppContext, trx: Transaction, emit: EmitEvent, store: MailStore, refund: RefundRow, actor: Actor, stripeRefundId: string | null) {
  const { order } = await settleRefund(trx, emit, refund, actor, stripeRefundId);
  if (!refund.notifyCustomer) return;
  const items = await orderItemsOf(trx, refund.storeId, refund.orderId);
  const trackingUrl = trackingUrlFor(store.trackingBase, order.trackingToken);
  await enqueueEmail(ctx, orderRefundedEmail(store.name, order, items, trackingUrl, { amount: Number(refund.amount), reason: refund.reason, items: refund.items }), { trx });
  await recordOrderEvent(trx, refund.storeId, refund.orderId, 'email_sent', actor, { template: 'order_refunded', to: order.email });
}

/**
 * Settles a pending (Stripe) refund once Stripe accepted it, whoever learns it first: the admin
 * request that asked Stripe, or the refund's webhook event. Under the order lock, so it happens once.
 */
export async function settlePendingRefund(ctx: AppContext, storeId: string, refundId: string, stripeRefundId: string, actor: Actor): Promise<boolean> {
  const store = await orderMailStore(ctx, storeId);
  const pending = await findRefund(ctx.db, storeId, refundId);
  if (!pending) return false;
  return withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, refundRestockVariantIds(pending));
    const refund = await lockPendingRefund(trx, storeId, pending.orderId, refundId, stripeRefundId);
    if (!refund) return false;
    await settle(ctx, trx, emit, store, refund, actor, stripeRefundId);
    return true;
  });
}

const COUNTS = new Set(['succeeded', 'pending']);

/**
 * Reconciles one refund Stripe reports for an order: one this API asked for (its metadata names
 * our refund) is settled or released if still pending; one made elsewhere (Stripe's dashboard) is
 * recorded once by orders. Returns what happened (changed false, with the reason, when nothing did).
 */
export async function reconcileStripeRefund(ctx: AppContext, storeId: string, orderId: string, reported: ReportedRefund): Promise<{ changed: boolean; outcome: string }> {
  const own = await findReportedRefund(ctx, storeId, orderId, reported);
  if (own) {
    if (own.status !== 'pending') return { changed: false, outcome: `refund ${reported.id} already recorded (${own.status})` };
    // A refund in several payments settles with its last part (asked last, so the others were asked), and fails with its first.
    const parts = (own.payments ?? []).filter((part) => part.provider === 'stripe').length;
    const part = reported.metadata?.part;
    if (parts > 1 && part && part !== `${COUNTS.has(reported.status ?? '') ? parts : 1}/${parts}`) {
      return { changed: false, outcome: `refund ${reported.id} is part ${part} of refund ${own.id}: it settles with its last part` };
    }
    if (COUNTS.has(reported.status ?? '')) {
      const settled = await settlePendingRefund(ctx, storeId, own.id, reported.id, WEBHOOK);
      return { changed: settled, outcome: settled ? `refund ${reported.id} settled` : `refund ${reported.id} already settled` };
    }
    const failed = await failPendingRefund(ctx, storeId, own.id, WEBHOOK, `Stripe reports the refund ${reported.status}`);
    return { changed: failed, outcome: `refund ${reported.id} ${reported.status}` };
  }
  if (!COUNTS.has(reported.status ?? '')) return { changed: false, outcome: `refund ${reported.id} is ${reported.status}: nothing was refunded` };
  const recorded = await recordStripeRefund(ctx, storeId, orderId, reported);
  // The tax it gave back leaves the provider's record too (Stripe Tax: a reversal; queued on failure).
  if (recorded.refundId) await syncTaxWithProvider(ctx, { storeId, orderId, refundId: recorded.refundId, amount: reported.amount });
  return { changed: recorded.changed, outcome: recorded.outcome };
}
