import type { StripeEvent } from '../adapters/payments/index.js';
import type { AppContext } from '../context.js';
import { applyAccountEvent, claimStripeEvent, DISPUTE_EVENTS, type EventOutcome, finishStripeEvent, ignored, INTENT_EVENT_STATES, type IntentEventType, REFUND_EVENTS } from '../services/payments/index.js';
import { onBalancePaymentEvent, paysOrderBalance } from './collect-order-balance.js';
import { onDraftPaymentEvent, paysDraftOrder } from './complete-draft-order.js';
import { onDisputeEvent } from './stripe-dispute-events.js';
import { onChargeRefunded, onPaymentIntentEvent, onRefundEvent } from './stripe-payment-events.js';

/**
 * A stored Stripe event, processed: payments keeps the event rows (received, claimed, finished);
 * what an event changes spans modules (a paid PaymentIntent confirms the checkout, a refund moves
 * the order's payment), so the dispatch lives here, above them.
 */
async function handleStripeEvent(ctx: AppContext, event: StripeEvent): Promise<EventOutcome> {
  // Checked on receipt; a row stored before that check existed could lack it, and nothing orders without it.
  if (!Number.isInteger(event.created)) return ignored('malformed event: no created time');
  // An invoice link's payment names its draft order: it makes (or was already) that draft's order.
  if (event.type in INTENT_EVENT_STATES && paysDraftOrder(event)) return onDraftPaymentEvent(ctx, event);
  // An edit's balance link names its balance invoice: it marks that balance paid (once).
  if (event.type in INTENT_EVENT_STATES && paysOrderBalance(event)) return onBalancePaymentEvent(ctx, event);
  if (event.type in INTENT_EVENT_STATES) return onPaymentIntentEvent(ctx, event, event.type as IntentEventType);
  if (event.type === 'charge.refunded') return onChargeRefunded(ctx, event);
  if ((REFUND_EVENTS as readonly string[]).includes(event.type)) return onRefundEvent(ctx, event);
  if ((DISPUTE_EVENTS as readonly string[]).includes(event.type)) return onDisputeEvent(ctx, event);
  if (event.type === 'account.updated') return applyAccountEvent(ctx, event, event.data.object);
  return ignored(`${event.type} is not handled`);
}

/**
 * The job's work: one stored event, processed once (a retry after success changes nothing). It
 * ends `processed`, or `ignored` with the reason it changed nothing (kept on the row).
 */
export async function processStripeEvent(ctx: AppContext, eventId: string) {
  const { row, status } = await claimStripeEvent(ctx, eventId);
  if (!row) return { eventId, outcome: `already ${status}` };
  const result = await handleStripeEvent(ctx, row.payload);
  await finishStripeEvent(ctx, eventId, result);
  if (result.ignored) ctx.log.info({ eventId, type: row.type, reason: result.reason }, 'stripe event ignored');
  return { eventId, outcome: result.ignored ? `ignored: ${result.reason}` : result.outcome };
}
