import type Stripe from 'stripe';

/** Stripe's shapes the payments module reads (events, their objects, accounts), named here so no service imports the SDK. */
export type StripeEvent = Stripe.Event;
export type StripePaymentIntent = Stripe.PaymentIntent;
export type StripeCharge = Stripe.Charge;
export type StripeAccount = Stripe.Account;

/** Per-request options: the connected account the call is made on, and the key that makes a retry harmless. */
export interface StripeCallOptions {
  stripeAccount?: string;
  idempotencyKey?: string;
  /** This call's own limit (ms) instead of the client's, and no retries: a checkout waits on it. */
  timeoutMs?: number;
}

export type StripeTaxCalculation = Stripe.Tax.Calculation;
export type StripeTaxTransaction = Stripe.Tax.Transaction;

/**
 * The payments port: the Stripe calls Shopwright makes (Connect accounts and links, PaymentIntents,
 * refunds) and the webhook signature check. Built once per process by createContext (`ctx.stripe`);
 * `STRIPE_API_URL` points it at a local server in tests.
 */
export interface StripeGateway {
  createPaymentIntent(params: Stripe.PaymentIntentCreateParams, options: StripeCallOptions): Promise<Stripe.PaymentIntent>;
  retrievePaymentIntent(id: string, options: StripeCallOptions): Promise<Stripe.PaymentIntent>;
  cancelPaymentIntent(id: string, params: Stripe.PaymentIntentCancelParams, options: StripeCallOptions): Promise<Stripe.PaymentIntent>;
  createRefund(params: Stripe.RefundCreateParams, options: StripeCallOptions): Promise<Stripe.Refund>;
  /** Stripe Tax: a calculation (POST /v1/tax/calculations), the transaction recorded from it on payment, its reversal on refund. */
  createTaxCalculation(params: Stripe.Tax.CalculationCreateParams, options: StripeCallOptions): Promise<Stripe.Tax.Calculation>;
  createTaxTransactionFromCalculation(params: Stripe.Tax.TransactionCreateFromCalculationParams, options: StripeCallOptions): Promise<Stripe.Tax.Transaction>;
  createTaxReversal(params: Stripe.Tax.TransactionCreateReversalParams, options: StripeCallOptions): Promise<Stripe.Tax.Transaction>;
  retrieveAccount(id: string): Promise<Stripe.Account>;
  createAccount(params: Stripe.AccountCreateParams, options: StripeCallOptions): Promise<Stripe.Account>;
  createAccountLink(params: Stripe.AccountLinkCreateParams, options: StripeCallOptions): Promise<Stripe.AccountLink>;
  createLoginLink(accountId: string, options: StripeCallOptions): Promise<Stripe.LoginLink>;
  /** The event in `rawBody` when `signature` (Stripe-Signature) signs those exact bytes with `secret` within `toleranceSec`; throws otherwise. */
  constructEvent(rawBody: Buffer, signature: string, secret: string, toleranceSec: number): Stripe.Event;
}
