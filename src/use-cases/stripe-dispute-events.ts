import Joi from 'joi';
import type { StripeEvent } from '../adapters/payments/index.js';
import type { AppContext } from '../context.js';
import { formatMoney } from '../services/checkout/index.js';
import { raiseIssue, resolveIssuesOf } from '../services/issues/index.js';
import { DISPUTE_STATUSES, isDisputeClosed, recordDispute, WEBHOOK, type DisputeFact } from '../services/orders/index.js';
import { applied, ignored, type EventOutcome } from '../services/payments/index.js';
import { reactInTransaction } from '../platform/events/domain-events.js';
import { withTransaction } from '../platform/with-transaction.js';
import { distrust, orderPaidBy } from './stripe-payment-events.js';

/**
 * `charge.dispute.*` events: each carries the dispute as it now stands. The order it is about is
 * the one its PaymentIntent paid (the order's own payment or a balance it collected by link); the
 * event acts only when sent for the store's connected account, in the order's currency, for no
 * more than that payment. The orders module records it (status, timeline); webhook topics
 * dispute.created / dispute.updated carry it; the store's operator sees an issue while it is open,
 * resolved when it closes.
 */
const stripeId = Joi.string().max(255);
const disputeObject = Joi.object({
  id: stripeId.required(),
  amount: Joi.number().integer().min(0).required(),
  currency: Joi.string().max(10).required(),
  reason: Joi.string().max(64).required(),
  status: Joi.string()
    .valid(...DISPUTE_STATUSES)
    .required(),
  payment_intent: Joi.alternatives(stripeId, Joi.object({ id: stripeId.required() }).unknown(true)).allow(null),
  evidence_details: Joi.object({ due_by: Joi.number().integer().min(0).allow(null) })
    .unknown(true)
    .allow(null)
}).unknown(true);

interface DisputeObject {
  id: string;
  amount: number;
  currency: string;
  reason: string;
  status: DisputeFact['status'];
  payment_intent?: string | { id: string } | null;
  evidence_details?: { due_by?: number | null } | null;
}

/** The operator's issue for an open dispute: one per Stripe dispute (its id is the subject). */
const ISSUE_KIND = 'payment_disputed';

export async function onDisputeEvent(ctx: AppContext, event: StripeEvent): Promise<EventOutcome> {
  const { value, error } = disputeObject.validate(event.data.object);
  if (error) return ignored(`malformed dispute: ${error.message}`);
  const dispute = value as DisputeObject;
  const intentId = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : dispute.payment_intent?.id;
  if (!intentId) return ignored('the dispute names no PaymentIntent');
  const order = await orderPaidBy(ctx, intentId);
  if (!order) return ignored("no order for this dispute's PaymentIntent");
  const untrusted = await distrust(ctx, event, order.storeId, 'order', { amount: 0, currency: dispute.currency }, { amount: 0, currency: order.currency });
  if (untrusted) return ignored(untrusted);
  const paid = order.balance ? order.balance.amount : Number(order.total);
  if (dispute.amount > paid) return ignored(`dispute of ${dispute.amount} exceeds the ${paid} that payment took`);

  const dueBy = dispute.evidence_details?.due_by;
  const fact: DisputeFact = {
    stripeDisputeId: dispute.id,
    paymentIntentId: intentId,
    amount: dispute.amount,
    currency: dispute.currency,
    reason: dispute.reason,
    status: dispute.status,
    evidenceDueBy: dueBy ? new Date(dueBy * 1000) : null,
    created: new Date(event.created * 1000)
  };
  return withTransaction(ctx, async (trx) => {
    const change = await recordDispute(trx, order.storeId, order.id, fact, WEBHOOK);
    if (!change.applied) return ignored(change.reason);
    if (change.changed) await reactInTransaction(ctx, trx, [{ type: 'dispute.changed', storeId: order.storeId, disputeId: change.dispute.id, change: change.created ? 'created' : 'updated' }]);
    if (isDisputeClosed(fact.status)) {
      await resolveIssuesOf(trx, order.storeId, ISSUE_KIND, fact.stripeDisputeId);
    } else if (change.changed) {
      const inquiry = fact.status.startsWith('warning_');
      await raiseIssue(trx, {
        storeId: order.storeId,
        kind: ISSUE_KIND,
        subject: fact.stripeDisputeId,
        severity: inquiry ? 'warning' : 'critical',
        title: inquiry ? `A customer's bank asks about order #${order.number}` : `The payment of order #${order.number} is disputed`,
        detail:
          `${formatMoney(fact.amount, change.dispute.currency)}, reason ${fact.reason}, status ${fact.status}` +
          (fact.evidenceDueBy ? `; answer with evidence in Stripe's dashboard by ${fact.evidenceDueBy.toISOString()}` : '') +
          (inquiry ? '' : '; refunds of this payment are refused until the dispute closes')
      });
    }
    return applied(`order #${order.number}: dispute ${fact.stripeDisputeId} ${change.changed ? '' : 'already '}${fact.status}`);
  });
}
