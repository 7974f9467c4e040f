import type { ServerRoute } from '@hapi/hapi';
import { adminCustomerRoutes } from './admin-customers/index.js';
import { adminCollectionRoutes } from './admin-collections/index.js';
import { adminDiscountRoutes } from './admin-discounts/index.js';
import { adminShippingRoutes } from './admin-shipping/index.js';
import { adminTaxRoutes } from './admin-taxes/index.js';
import { adminProductRoutes } from './admin-products/index.js';
import { adminAuditRoutes } from './admin-audit/index.js';
import { adminJobRoutes } from './admin-jobs/index.js';
import { adminMarketingRoutes } from './admin-marketing/index.js';
import { publicClickRoutes } from './public-clicks/index.js';
import { adminStoreRoutes } from './admin-store/index.js';
import { adminApiKeyRoutes } from './admin-api-keys/index.js';
import { adminWebhookRoutes } from './admin-webhooks/index.js';
import { adminTeamRoutes } from './admin-team/index.js';
import { adminDomainRoutes } from './admin-domain/index.js';
import { adminIssueRoutes } from './admin-issues/index.js';
import { adminExternalSystemRoutes } from './admin-external-system/index.js';
import { internalExternalSystemRoutes } from './internal-external-system/index.js';
import { internalHostedDomainRoutes } from './internal-hosted-domain/index.js';
import { authRoutes } from './auth/index.js';
import { healthRoutes } from './health/index.js';
import { openApiRoutes } from './openapi/index.js';
import { publicRoutes } from './public/index.js';
import { storefrontRoutes } from './storefront/index.js';
import { storefrontCartRoutes } from './storefront-carts/index.js';
import { storefrontReviewRoutes } from './storefront-reviews/index.js';
import { adminOrderRoutes } from './admin-orders/index.js';
import { adminOrderRefundRoutes } from './admin-order-refunds/index.js';
import { adminOrderDisputeRoutes } from './admin-order-disputes/index.js';
import { adminOrderTimelineRoutes } from './admin-order-timeline/index.js';
import { adminReturnRoutes } from './admin-returns/index.js';
import { adminReviewRoutes } from './admin-reviews/index.js';
import { adminPaymentRoutes } from './admin-payments/index.js';
import { publicOrderRoutes } from './public-orders/index.js';
import { internalStripeRoutes } from './internal-stripe/index.js';
import { adminDraftOrderRoutes } from './admin-draft-orders/index.js';
import { adminOrderEditRoutes } from './admin-order-edits/index.js';
import { publicInvoiceRoutes } from './public-invoices/index.js';

/** Every route group, mounted under /api/v1. One line per group. */
export const ROUTE_GROUPS: ServerRoute[][] = [
  healthRoutes,
  openApiRoutes,
  authRoutes,
  adminStoreRoutes,
  adminApiKeyRoutes,
  adminWebhookRoutes,
  adminTeamRoutes,
  adminAuditRoutes,
  adminDomainRoutes,
  adminIssueRoutes,
  adminExternalSystemRoutes,
  internalExternalSystemRoutes,
  internalHostedDomainRoutes,
  adminDiscountRoutes,
  adminShippingRoutes,
  adminTaxRoutes,
  adminProductRoutes,
  adminCollectionRoutes,
  adminCustomerRoutes,
  adminJobRoutes,
  publicRoutes,
  storefrontRoutes,
  storefrontCartRoutes,
  storefrontReviewRoutes,
  adminOrderRoutes,
  adminDraftOrderRoutes,
  adminOrderEditRoutes,
  publicInvoiceRoutes,
  adminOrderRefundRoutes,
  adminOrderTimelineRoutes,
  adminOrderDisputeRoutes,
  adminReturnRoutes,
  adminReviewRoutes,
  adminPaymentRoutes,
  publicOrderRoutes,
  internalStripeRoutes,
  adminMarketingRoutes,
  publicClickRoutes
];
