export type { StripeAccount, StripeCallOptions, StripeCharge, StripeEvent, StripeGateway, StripePaymentIntent } from './port.js';
export { createStripeGateway } from './stripe.js';
