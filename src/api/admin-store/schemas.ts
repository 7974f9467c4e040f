import Joi from 'joi';
import { MAILER_PROVIDERS } from '../../services/email/index.js';
import { ISSUE_SEVERITIES } from '../../services/issues/index.js';
import { orderSummaryResource } from '../admin-orders/schemas.js';
import { mediaResource } from '../admin-products/schemas.js';
import { emailValue, idValue, responseObject, timestamp } from '../schemas.js';

const count = () => Joi.number().integer().min(0).required();
const amount = () => Joi.number().integer().required().description('minor units of the store currency');

const shippingMethodResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  price: amount(),
  freeOverAmount: Joi.number().integer().allow(null).required(),
  countries: Joi.array().items(Joi.string().length(2)).allow(null).required().description('ISO 3166-1 alpha-2; null ships everywhere')
}).label('ShippingMethod');

/** The store's email settings; the SMTP password is write-only, reported as `passwordSet`. */
const emailSettingsResource = responseObject({
  fromName: Joi.string().allow('', null).required(),
  fromEmail: emailValue().allow(null).required(),
  replyTo: emailValue().allow(null).required(),
  smtp: responseObject({
    host: Joi.string().required(),
    port: Joi.number().integer().min(1).max(65535).required(),
    secure: Joi.boolean().required(),
    user: Joi.string().allow('', null).required(),
    passwordSet: Joi.boolean().required()
  })
    .label('SmtpSettings')
    .allow(null)
    .required()
}).label('EmailSettings');

export const storeSettingsResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  currency: Joi.string().length(3).required(),
  contactEmail: emailValue().allow(null).required(),
  timezone: Joi.string().required(),
  shippingMethods: Joi.array().items(shippingMethodResource).required(),
  manualPaymentsEnabled: Joi.boolean().required(),
  manualPaymentDays: Joi.number().integer().min(1).max(365).required().description('days an unpaid manual-payment order stays open before it is cancelled and its stock released'),
  logoUrl: Joi.string().uri().allow(null).required(),
  newsletterDoubleOptIn: Joi.boolean().required(),
  marketingSendRate: Joi.number().integer().min(1).allow(null).required().description('messages per second; null = the platform default'),
  storefrontUrl: Joi.string().uri().allow(null).required(),
  storefrontCacheMaxAge: Joi.number().integer().min(0).required(),
  auditRetentionDays: Joi.number().integer().min(1).required(),
  storefrontCacheStaleWhileRevalidate: Joi.number().integer().min(0).required(),
  pricesIncludeTax: Joi.boolean().required(),
  taxProvider: Joi.string().valid('rates', 'stripe_tax').required(),
  email: emailSettingsResource.required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('StoreSettings');

const openIssueResource = responseObject({
  id: idValue().required(),
  kind: Joi.string().required(),
  severity: Joi.string().valid(...ISSUE_SEVERITIES).required(),
  title: Joi.string().required(),
  occurrences: Joi.number().integer().min(1).required(),
  lastSeenAt: timestamp().required()
}).label('DashboardIssue');

export const dashboardResponse = responseObject({
  store: storeSettingsResource.required(),
  stats: responseObject({
    ordersCount: count(),
    revenue30d: amount(),
    customersCount: count(),
    subscribersCount: count(),
    productsCount: count(),
    pendingReviews: count(),
    lowStockVariants: count()
  }).required(),
  setup: responseObject({
    paymentsConnected: Joi.boolean().required(),
    domainVerified: Joi.boolean().required(),
    domainConnected: Joi.boolean().required().description('a custom domain is connected, verified or not: GET /admin/store/domain answers 200 (404 before)'),
    emailConfigured: Joi.boolean().required(),
    hasProducts: Joi.boolean().required()
  }).required(),
  recentOrders: Joi.array().items(orderSummaryResource).max(5).required(),
  openIssues: Joi.array().items(openIssueResource).max(5).required()
});

export const storeSettingsResponse = responseObject({ store: storeSettingsResource.required() });

/** A storefront token as listed: never the secret, only its first characters. */
const storefrontTokenResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  prefix: Joi.string().required().description('the first characters of the secret, to tell tokens apart'),
  lastUsedAt: timestamp().allow(null).required(),
  createdAt: timestamp().required(),
  revokedAt: timestamp().allow(null).required()
}).label('StorefrontToken');

export const storefrontTokenListResponse = responseObject({ tokens: Joi.array().items(storefrontTokenResource).required() });
export const storefrontTokenResponse = responseObject({ token: storefrontTokenResource.required() });
/** Create and rotate: the only answers that carry the secret. */
export const storefrontTokenSecretResponse = responseObject({
  token: storefrontTokenResource.required(),
  secret: Joi.string().pattern(/^swsf_[A-Za-z0-9_-]{32,}$/, 'storefront token').required()
});

export const emailVerifyResponse = responseObject({
  ok: Joi.boolean().required(),
  provider: Joi.string().valid(...MAILER_PROVIDERS).required(),
  message: Joi.string().required()
});

const delivery = {
  messageId: Joi.string().required(),
  accepted: Joi.array().items(Joi.string()).required().description('the recipients the server accepted')
};
export const testEmailResponse = responseObject(delivery);
export const testTemplateEmailResponse = responseObject({ templateKey: Joi.string().required(), ...delivery });

export const mediaResponse = responseObject({ media: mediaResource.required() });
