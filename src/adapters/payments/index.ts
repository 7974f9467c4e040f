export type { StripeAccount, StripeCallOptions, StripeCharge, StripeEvent, StripeGateway, StripePaymentIntent, StripeTaxCalculation, StripeTaxTransaction } from './port.js';
export { createStripeGateway } from './stripe.js';
