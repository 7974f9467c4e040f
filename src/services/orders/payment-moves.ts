import { decidePayment, type PaymentState } from '../payments/index.js';
import type { OrderRow } from './dto.js';
import { applyFigureChange } from './order-figures.js';
import { recordOrderEvent, type Actor, type OrderEventType } from './timeline.js';
import type { Transaction } from '../../db/transaction.js';

/** Where a payment change comes from: a Stripe event (ordered by its `created`), or someone acting now. */
export type PaymentSource = { eventId: string; created: Date; actor: Actor } | { actor: Actor };

export type PaymentMove = { applied: true; changed: boolean; state: PaymentState; order: OrderRow } | { applied: false; reason: string };

const EVENT_OF: Partial<Record<PaymentState, OrderEventType>> = { authorized: 'authorized', paid: 'paid', voided: 'payment_voided', failed: 'payment_failed' };

/**
 * One order's payment, under its row lock: the payment state machine decides; the new state, the
 * amount refunded and (for a Stripe event) the event are written; revenue and the customer's figures
 * follow; a change of state is an event on the timeline (refunds write their own, with the refund).
 */
export async function moveOrderPayment(
  trx: Transaction,
  storeId: string,
  orderId: string,
  change: { state: PaymentState; amountRefunded?: number },
  source: PaymentSource,
  eventData: Record<string, unknown> = {}
): Promise<PaymentMove> {
  const order = (await trx('orders').where({ id: orderId, storeId }).forUpdate().first()) as OrderRow | undefined;
  if (!order) return { applied: false, reason: 'the order is gone' };
  const fromEvent = 'eventId' in source;
  // A change made now is never stale against the last Stripe event.
  const created = fromEvent ? source.created : (order.paymentEventCreated ?? new Date());
  const now = { state: order.paymentStatus, amountRefunded: Number(order.amountRefunded), lastEventCreated: order.paymentEventCreated };
  const decision = decidePayment(now, { state: change.state, created, ...(change.amountRefunded === undefined ? {} : { amountRefunded: change.amountRefunded }) });
  if (!decision.apply) return { applied: false, reason: `order #${order.number}: ${decision.reason}` };
  const [updated] = (await trx('orders')
    .where({ storeId, id: orderId })
    .update({
      paymentStatus: decision.state,
      amountRefunded: decision.amountRefunded,
      ...(fromEvent ? { paymentEventCreated: source.created, paymentEventId: source.eventId } : {}),
      ...(decision.changed ? { updatedAt: trx.fn.now() } : {})
    })
    .returning('*')) as OrderRow[];
  await applyFigureChange(trx, order, order, updated!);
  const type = EVENT_OF[decision.state];
  if (decision.changed && type && decision.state !== order.paymentStatus) {
    await recordOrderEvent(trx, storeId, orderId, type, source.actor, { ...eventData, ...(fromEvent ? { stripeEventId: source.eventId } : {}) });
  }
  return { applied: true, changed: decision.changed, state: decision.state, order: updated! };
}
