import { confirmCheckoutSession } from '../../use-cases/confirm-checkout.js';
import { createCheckoutSession, type CheckoutSessionInput } from '../../services/checkout/index.js';
import { idempotent } from '../idempotency.js';
import { storefrontHandler } from '../handler.js';
import { storefrontRoute } from '../route-helpers.js';
import { cartParams, checkoutSessionPayload, checkoutSessionResponse, confirmedOrderResponse, sessionParams } from './schemas.js';

export const createCheckoutSessionRoute = idempotent(storefrontRoute({
  method: 'POST',
  path: '/storefront/carts/{cartId}/checkout-session',
  options: {
    plugins: { openapi: { errors: [409, 502] } },
    description:
      'Open a checkout session: validates the cart, reserves its stock and discount use until expiresAt; provider stripe (clientSecret) when the store takes Stripe payments, else manual',
    tags: ['checkout'],
    validate: { params: cartParams, payload: checkoutSessionPayload },
    response: { status: { 201: checkoutSessionResponse } },
    handler: storefrontHandler<{ cartId: string }, CheckoutSessionInput>(async ({ ctx, storeId, params, payload, h }) => {
      const result = await createCheckoutSession(ctx, storeId, params.cartId, payload);
      return h.response(result).code(201);
    })
  }
}));

export const confirmCheckoutSessionRoute = idempotent(
  storefrontRoute({
    method: 'POST',
    path: '/storefront/checkout-sessions/{sessionId}/confirm',
    options: {
      plugins: { openapi: { errors: [409, 502] } },
      description: 'Turn a checkout session into an order; idempotent (a repeat returns the same order); 409 payment_not_completed until Stripe has the payment',
      tags: ['checkout'],
      validate: { params: sessionParams },
      response: { status: { 200: confirmedOrderResponse } },
      handler: storefrontHandler<{ sessionId: string }>(({ ctx, storeId, params }) => confirmCheckoutSession(ctx, storeId, params.sessionId))
    }
  })
);
