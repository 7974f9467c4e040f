import Joi from 'joi';
import { PAYMENT_ACCOUNT_STATUSES } from '../../services/payments/index.js';
import { responseObject, timestamp } from '../schemas.js';

const url = () => Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000);

export const onboardingLinkPayload = Joi.object({ returnUrl: url().required(), refreshUrl: url().required() });

/** The store's Stripe Connect account as the admin sees it (no account: not_connected, flags false). */
export const paymentAccountResource = responseObject({
  provider: Joi.string().valid('stripe').required(),
  status: Joi.string().valid(...PAYMENT_ACCOUNT_STATUSES).required(),
  accountId: Joi.string().allow(null).required(),
  chargesEnabled: Joi.boolean().required(),
  payoutsEnabled: Joi.boolean().required(),
  detailsSubmitted: Joi.boolean().required(),
  requirementsDue: Joi.array().items(Joi.string()).required()
}).label('PaymentAccount');

export const onboardingLinkResponse = responseObject({ url: Joi.string().uri().required(), expiresAt: timestamp().required() }).label('OnboardingLink');
export const dashboardLinkResponse = responseObject({ url: Joi.string().uri().required() }).label('DashboardLink');
