/**
 * The one state machine every change of a payment's status goes through (orders and checkout
 * sessions alike): Stripe events, whatever order they arrive in, only move a payment forward.
 *
 *   pending ──> authorized ──> paid ──> partially_refunded ──> refunded
 *      │  ╲          │           ╰──────────────────────────────> ↑
 *      │   ╲         ╰──> voided
 *      ╰──> failed ──> (authorized | paid | voided: a declined card may be retried)
 *
 * `refunded` and `voided` are final. A partial refund may grow (more refunded), never shrink.
 */
export const PAYMENT_STATES = ['pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided', 'failed'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

const FORWARD: Record<PaymentState, readonly PaymentState[]> = {
  pending: ['authorized', 'paid', 'failed', 'voided'],
  failed: ['authorized', 'paid', 'voided'],
  authorized: ['paid', 'voided'],
  paid: ['partially_refunded', 'refunded'],
  partially_refunded: ['refunded'],
  refunded: [],
  voided: []
};

/** What is recorded about a payment now. */
export interface PaymentNow {
  state: PaymentState;
  amountRefunded: number;
  /** Stripe's `created` of the last event applied to this payment (null: none yet). */
  lastEventCreated: Date | null;
}

/** What one event says about the payment. */
export interface PaymentFact {
  state: PaymentState;
  /** For refunds: the charge's total refunded so far. */
  amountRefunded?: number;
  /** The event's `created` (Stripe's clock, whole seconds). */
  created: Date;
}

export type PaymentDecision =
  /** Write the new state (and amount); `changed` false: the fact confirms what is recorded (only the last event moves). */
  | { apply: true; changed: boolean; state: PaymentState; amountRefunded: number }
  /** Change nothing, for this reason. */
  | { apply: false; reason: string };

/**
 * Whether a fact moves the payment, decided on the event's `created` first (an event older than
 * the last applied one is stale) and then on the states themselves (events of one second are
 * ordered by the forward-only rule; a tie never moves a payment back).
 */
export function decidePayment(now: PaymentNow, fact: PaymentFact): PaymentDecision {
  if (now.lastEventCreated && fact.created.getTime() < now.lastEventCreated.getTime()) {
    return { apply: false, reason: `stale: created ${fact.created.toISOString()}, before the last applied event (${now.lastEventCreated.toISOString()})` };
  }
  const amountRefunded = fact.state === 'partially_refunded' || fact.state === 'refunded' ? (fact.amountRefunded ?? now.amountRefunded) : now.amountRefunded;
  if (fact.state === now.state) {
    if (fact.state === 'partially_refunded' && amountRefunded > now.amountRefunded) return { apply: true, changed: true, state: fact.state, amountRefunded };
    if (fact.state === 'partially_refunded' && amountRefunded < now.amountRefunded) {
      return { apply: false, reason: `stale: ${amountRefunded} refunded, ${now.amountRefunded} already recorded` };
    }
    return { apply: true, changed: false, state: now.state, amountRefunded: now.amountRefunded };
  }
  if (!FORWARD[now.state].includes(fact.state)) {
    return { apply: false, reason: `the payment is ${now.state}: ${fact.state} would move it backwards` };
  }
  return { apply: true, changed: true, state: fact.state, amountRefunded: Math.max(amountRefunded, now.amountRefunded) };
}

/** What an order in this state adds to the store's revenue. */
export function revenueOf(state: PaymentState, total: number, amountRefunded: number): number {
  if (state === 'refunded' || state === 'voided' || state === 'failed') return 0;
  return total - amountRefunded;
}
