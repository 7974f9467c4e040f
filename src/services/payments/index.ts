/**
 * The face of module payments: payment providers, Stripe Connect accounts, Stripe events received and stored.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { PAYMENT_ACCOUNT_STATUSES, applyAccountEvent, connectedStripeAccount, createDashboardLink, createOnboardingLink, getPaymentStatus, resetPayments } from './accounts.js';
export { applied, ignored, type EventOutcome } from './event-outcome.js';
export { paymentsModule } from './module.js';
export { PAYMENT_STATES, decidePayment, revenueOf, type PaymentFact, type PaymentState } from './payment-state.js';
export { PROVIDERS, PROVIDER_NAMES, chooseProvider, type PaymentCheck, type ProviderName } from './providers.js';
export { reconcileStripeEvents } from './reconcile-events.js';
export { callStripe, stripeRefused } from './stripe-calls.js';
export { DISPUTE_EVENTS, INTENT_EVENT_STATES, REFUND_EVENTS, type IntentEventType } from './stripe-event-types.js';
export { claimStripeEvent, finishStripeEvent, receiveStripeEvent, stripeEventFailedForGood } from './webhooks.js';
export { refundStripePayment, startStripePayment, voidStripePayment } from './stripe-money.js';
export { stripeEventEnvelope } from './stripe-event-verification.js';
