import Joi from 'joi';
import { EMAIL_MARKETING_STATES } from '../../services/customers/index.js';
import { responseObject } from '../schemas.js';

/** Emails here are masked (`j***@example.com`): whoever holds a link learns no address from it. */
const maskedEmail = () => Joi.string().description('masked: j***@example.com');

/** What an unsubscribe or newsletter-confirm link is about, for a confirmation page; reading it changes nothing. */
export const emailLinkSubjectResponse = responseObject({
  email: maskedEmail().required(),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES).required(),
  store: responseObject({ name: Joi.string().allow('').required() }).label('EmailLinkStore').required()
}).label('EmailLinkSubject');

export const unsubscribedResponse = responseObject({
  unsubscribed: Joi.boolean().valid(true).required(),
  email: maskedEmail().required()
}).label('Unsubscribed');

export const newsletterConfirmedResponse = responseObject({
  subscribed: Joi.boolean().valid(true).required(),
  email: maskedEmail().required(),
  emailMarketing: Joi.string().valid('subscribed').required()
}).label('NewsletterConfirmed');
