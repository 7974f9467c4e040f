import { createDashboardLink, createOnboardingLink, getPaymentStatus, resetPayments } from '../../services/payments/index.js';
import { ADMINS, OWNERS } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { dashboardLinkResponse, onboardingLinkPayload, onboardingLinkResponse, paymentAccountResource } from './schemas.js';

export const getPaymentsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/payments',
  options: {
    description: 'Stripe Connect status: not_connected, onboarding, restricted or active, with the account flags',
    tags: ['payments'],
    response: { status: { 200: paymentAccountResource } },
    handler: adminHandler(({ ctx, storeId }) => getPaymentStatus(ctx, storeId))
  }
});

export const onboardingLinkRoute = adminRoute(OWNERS, {
  method: 'POST',
  path: '/admin/store/payments/onboarding-link',
  options: {
    plugins: { openapi: { errors: [502] } },
    description: 'Creates the connected Stripe account if none, then a single-use onboarding link { url, expiresAt }',
    tags: ['payments'],
    validate: { payload: onboardingLinkPayload },
    response: { status: { 200: onboardingLinkResponse } },
    handler: adminHandler<{}, { returnUrl: string; refreshUrl: string }>(({ ctx, storeId, payload }) => createOnboardingLink(ctx, storeId, payload))
  }
});

export const dashboardLinkRoute = adminRoute(OWNERS, {
  method: 'POST',
  path: '/admin/store/payments/dashboard-link',
  options: {
    plugins: { openapi: { errors: [409, 502] } },
    description: 'A Stripe Express dashboard login link { url }; 409 before onboarding is complete',
    tags: ['payments'],
    response: { status: { 200: dashboardLinkResponse } },
    handler: adminHandler(({ ctx, storeId }) => createDashboardLink(ctx, storeId))
  }
});

export const resetPaymentsRoute = adminRoute(OWNERS, {
  method: 'POST',
  path: '/admin/store/payments/reset',
  options: {
    description: 'Forgets the connected account; status back to not_connected',
    tags: ['payments'],
    response: { status: { 200: paymentAccountResource } },
    handler: adminHandler(({ ctx, storeId }) => resetPayments(ctx, storeId))
  }
});
