import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import { activeStripeAccount, connectedStripeAccount } from './accounts.js';
import { callStripe } from './stripe-calls.js';

/**
 * Money moves on an order's Stripe payment, made on the store's connected account through the
 * payments port (ctx.stripe): what a cancel or a refund asks of Stripe. A Stripe or network
 * failure is 502 `upstream_failed`.
 */

/** Cancels an authorised (not captured) PaymentIntent: the hold on the shopper's card goes. */
export async function voidStripePayment(ctx: AppContext, storeId: string, paymentIntentId: string, idempotencyKey: string): Promise<void> {
  const account = await connectedStripeAccount(ctx.db, storeId);
  await callStripe('cancel the payment', () =>
    ctx.stripe.cancelPaymentIntent(paymentIntentId, { cancellation_reason: 'requested_by_customer' }, { stripeAccount: account ?? undefined, idempotencyKey })
  );
}

/**
 * Refunds `amount` of a captured PaymentIntent (the platform's fee with it); 409
 * `order_not_refundable` when the store has no connected account or the order no PaymentIntent.
 * Returns Stripe's refund (its id, and its status: `failed` or `canceled` means no money moved).
 */
export async function refundStripePayment(
  ctx: AppContext,
  storeId: string,
  refund: { paymentIntentId: string | null; amount: number; metadata: Record<string, string>; idempotencyKey: string }
): Promise<{ id: string; status: string | null }> {
  const account = await connectedStripeAccount(ctx.db, storeId);
  if (!account || !refund.paymentIntentId) throw conflict('order_not_refundable', 'The order has no Stripe payment to refund', [{ path: 'orderId', message: 'no PaymentIntent or connected account' }]);
  const paymentIntentId = refund.paymentIntentId;
  return callStripe('refund the payment', () =>
    ctx.stripe.createRefund(
      { payment_intent: paymentIntentId, amount: refund.amount, refund_application_fee: true, reason: 'requested_by_customer', metadata: refund.metadata },
      { stripeAccount: account, idempotencyKey: refund.idempotencyKey }
    )
  );
}

/**
 * Starts a Stripe payment of `amount` outside a checkout (an invoice link): a PaymentIntent on the
 * store's connected account with the platform's fee, its metadata naming what it pays. 409 when
 * the store cannot take Stripe payments; 502 when Stripe fails.
 */
export async function startStripePayment(
  ctx: AppContext,
  storeId: string,
  payment: { amount: number; currency: string; email: string | null; metadata: Record<string, string>; idempotencyKey: string }
): Promise<{ id: string; clientSecret: string | null }> {
  const accountId = await activeStripeAccount(ctx.db, storeId);
  if (!accountId) throw conflict('conflict', 'Stripe payments are not active for this store', [{ path: 'stripe', message: 'the store has no Stripe account that can take charges' }]);
  const fee = Math.floor((payment.amount * ctx.config.checkout.applicationFeeBps) / 10_000);
  const intent = await callStripe('start the payment', () =>
    ctx.stripe.createPaymentIntent(
      {
        amount: payment.amount,
        currency: payment.currency.toLowerCase(),
        application_fee_amount: fee,
        ...(payment.email ? { receipt_email: payment.email } : {}),
        automatic_payment_methods: { enabled: true },
        metadata: { storeId, ...payment.metadata }
      },
      { stripeAccount: accountId, idempotencyKey: payment.idempotencyKey }
    )
  );
  return { id: intent.id, clientSecret: intent.client_secret };
}
