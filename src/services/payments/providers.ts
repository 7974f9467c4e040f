import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import { activeStripeAccount, canChargeWithStripe } from './accounts.js';
import { callStripe } from './stripe-calls.js';

export const PROVIDER_NAMES = ['manual', 'stripe'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface PaymentRequest {
  storeId: string;
  sessionId: string;
  amount: number;
  currency: string;
  email: string;
}

export interface StartedPayment {
  paymentIntentId: string | null;
  clientSecret: string | null;
}

export interface PaymentCheck {
  complete: boolean;
  /** The order's payment status when complete (a card hold awaiting capture is authorized, not paid). */
  paymentStatus: 'pending' | 'authorized' | 'paid';
}

/** What checkout needs from a payment provider. */
export interface PaymentProvider {
  name: ProviderName;
  start(ctx: AppContext, request: PaymentRequest): Promise<StartedPayment>;
  check(ctx: AppContext, session: { storeId: string; paymentIntentId: string | null; amount: number | string; currency: string }): Promise<PaymentCheck>;
  /** check() asks nobody (no network, no database): confirm may run it while it holds row locks. */
  checkIsLocal: boolean;
}

/** Manual payments: the order is created with payment pending; the merchant collects off-platform. */
export const manualProvider: PaymentProvider = {
  name: 'manual',
  start: async () => ({ paymentIntentId: null, clientSecret: null }),
  check: async () => ({ complete: true, paymentStatus: 'pending' }),
  checkIsLocal: true
};

/** Stripe Connect: a PaymentIntent on the store's connected account (direct charge) with the platform's fee. */
export const stripeProvider: PaymentProvider = {
  name: 'stripe',
  checkIsLocal: false,
  async start(ctx, request) {
    const accountId = await activeStripeAccount(ctx.db, request.storeId);
    if (!accountId) throw conflict('conflict', 'Stripe payments are not active for this store');
    const fee = Math.floor((request.amount * ctx.config.checkout.applicationFeeBps) / 10_000);
    const intent = await callStripe('start the payment', () =>
      ctx.stripe.createPaymentIntent(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          application_fee_amount: fee,
          receipt_email: request.email,
          automatic_payment_methods: { enabled: true },
          metadata: { storeId: request.storeId, checkoutSessionId: request.sessionId }
        },
        // One key per checkout session: a retried request can never create a second PaymentIntent.
        { stripeAccount: accountId, idempotencyKey: `checkout-session:${request.sessionId}:payment-intent` }
      )
    );
    return { paymentIntentId: intent.id, clientSecret: intent.client_secret };
  },
  async check(ctx, session) {
    if (!session.paymentIntentId) return { complete: false, paymentStatus: 'pending' };
    const row = await ctx.db('storePaymentAccounts').where({ storeId: session.storeId }).first('accountId');
    const intentId = session.paymentIntentId;
    const intent = await callStripe('read the payment', () =>
      ctx.stripe.retrievePaymentIntent(intentId, row?.accountId ? { stripeAccount: row.accountId } : {})
    );
    // A PaymentIntent whose amount or currency was changed on Stripe since does not pay this session.
    const matches = intent.amount === Number(session.amount) && intent.currency.toLowerCase() === session.currency.toLowerCase();
    const complete = matches && (intent.status === 'succeeded' || intent.status === 'requires_capture');
    return { complete, paymentStatus: intent.status === 'requires_capture' ? 'authorized' : 'paid' };
  }
};

export const PROVIDERS: Record<ProviderName, PaymentProvider> = { manual: manualProvider, stripe: stripeProvider };

/** Stripe when the store's account takes charges, else manual when enabled; `requested` picks one explicitly. */
export async function chooseProvider(ctx: AppContext, store: { id: string; manualPaymentsEnabled: boolean }, requested?: ProviderName): Promise<PaymentProvider> {
  const stripe = await canChargeWithStripe(ctx, store.id);
  const available: ProviderName[] = [...(stripe ? (['stripe'] as const) : []), ...(store.manualPaymentsEnabled ? (['manual'] as const) : [])];
  const name = requested ?? available[0];
  if (!name || !available.includes(name)) {
    // Say which setting turns the missing provider on: the merchant reading this is often testing their own storefront.
    const howTo =
      requested === 'stripe'
        ? 'connect a Stripe account that can take charges (POST /admin/store/payments/onboarding-link)'
        : 'turn on the store setting manualPaymentsEnabled (PATCH /admin/store { "manualPaymentsEnabled": true }) or connect Stripe';
    throw conflict('conflict', `${requested ? `The ${requested} payment provider is not enabled for this store` : 'This store cannot take payments yet'}: ${howTo}`, [
      { path: 'provider', message: available.length ? `available: ${available.join(', ')}` : 'no payment provider is enabled' },
      requested === 'stripe'
        ? { path: 'stripe', message: 'the store has no Stripe account that can take charges' }
        : { path: 'manualPaymentsEnabled', message: 'the store setting manualPaymentsEnabled is false' }
    ]);
  }
  return PROVIDERS[name];
}
