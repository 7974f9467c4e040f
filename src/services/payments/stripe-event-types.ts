import type { PaymentState } from './payment-state.js';

/** The payment state each PaymentIntent event reports. */
export const INTENT_EVENT_STATES = {
  'payment_intent.amount_capturable_updated': 'authorized',
  'payment_intent.succeeded': 'paid',
  'payment_intent.payment_failed': 'failed',
  'payment_intent.canceled': 'voided'
} as const satisfies Record<string, PaymentState>;
export type IntentEventType = keyof typeof INTENT_EVENT_STATES;

/** The refund events reconciled with the order's refunds. */
export const REFUND_EVENTS = ['refund.created', 'refund.updated', 'charge.refund.updated'] as const;

/** The dispute events, each carrying the dispute as it now stands. */
export const DISPUTE_EVENTS = ['charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed', 'charge.dispute.funds_withdrawn', 'charge.dispute.funds_reinstated'] as const;

/** The events the receiver queues for processing; any other is stored as processed and left alone. */
export const HANDLED_EVENTS = [...(Object.keys(INTENT_EVENT_STATES) as IntentEventType[]), 'charge.refunded', ...REFUND_EVENTS, ...DISPUTE_EVENTS, 'account.updated'] as const;
