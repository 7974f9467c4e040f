import { getDashboard, updateStore, type UpdateStoreInput } from '../../services/stores/index.js';
import { ANY_MEMBER, ADMINS } from '../../platform/roles.js';
import { envelopeJson } from '../json-body.js';
import { adminHandler } from '../handler.js';
import { successBody } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { dashboardResponse, storeSettingsResponse } from './schemas.js';
import Joi from 'joi';
import { email, id, money, text } from '../schemas.js';

export const getStore = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/store',
  options: {
    description: 'Store dashboard: settings, stats, setup progress, the 5 newest orders (newest first), the 5 open issues seen most recently (most recently seen first)',
    tags: ['store'],
    response: { status: { 200: dashboardResponse } },
    // Concurrent requests share one dashboard (getDashboard), and so its JSON: serialised once.
    handler: adminHandler(async ({ ctx, storeId, h }) => {
      const dashboard = await getDashboard(ctx, storeId);
      return envelopeJson(h, dashboard, () => JSON.stringify(successBody(dashboard)));
    })
  }
});

const timezone = Joi.string().trim().max(64).custom((value: string, helpers) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    return helpers.error('any.invalid');
  }
}, 'IANA time zone');

const country = Joi.string().trim().uppercase().length(2).pattern(/^[A-Z]{2}$/);

export const updateStorePayload = Joi.object({
  name: text(120).min(1),
  contactEmail: email().allow(null),
  timezone,
  currency: Joi.string().trim().uppercase().length(3).pattern(/^[A-Z]{3}$/),
  shippingMethods: Joi.array().max(50).items(
    Joi.object({
      id: id(),
      name: text(120).min(1).required(),
      price: money().required(),
      freeOverAmount: money().allow(null),
      countries: Joi.array().items(country).max(250).unique().allow(null)
    })
  ),
  manualPaymentsEnabled: Joi.boolean(),
  manualPaymentDays: Joi.number().integer().min(1).max(365).description('days an unpaid manual-payment order stays open before it is cancelled and its stock released'),
  // Seconds browsers and CDNs may reuse storefront responses, and serve them stale while revalidating.
  storefrontCacheMaxAge: Joi.number().integer().min(0).max(86400),
  auditRetentionDays: Joi.number().integer().min(1).max(3650).description('how long audit entries are kept (default 365)'),
  storefrontCacheStaleWhileRevalidate: Joi.number().integer().min(0).max(604800),
  logoUrl: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000).allow(null),
  newsletterDoubleOptIn: Joi.boolean(),
  pricesIncludeTax: Joi.boolean().description('VAT style: prices and shipping prices include tax (docs/taxes.md)'),
  taxProvider: Joi.string().valid('rates', 'stripe_tax').description('who computes tax: the store tax regions, or Stripe Tax on the connected account'),
  marketingSendRate: Joi.number().integer().min(1).max(100_000).allow(null).description('messages per second; capped by the platform'),
  storefrontUrl: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000).allow(null),
  email: Joi.object({
    fromName: text(120).allow(null, ''),
    fromEmail: email().allow(null),
    replyTo: email().allow(null),
    smtp: Joi.object({
      host: Joi.string().trim().hostname().required(),
      port: Joi.number().integer().min(1).max(65535).required(),
      secure: Joi.boolean(),
      user: text(255).allow(null, ''),
      password: Joi.string().max(1024).allow(null, '')
    }).allow(null)
  })
}).min(1);

export const patchStore = adminRoute(ADMINS, {
  method: 'PATCH',
  path: '/admin/store',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Update store settings (the SMTP password is write-only)',
    tags: ['store'],
    validate: { payload: updateStorePayload },
    response: { status: { 200: storeSettingsResponse } },
    handler: adminHandler<{}, UpdateStoreInput>(async ({ ctx, storeId, payload }) => ({ store: await updateStore(ctx, storeId, payload) }))
  }
});
