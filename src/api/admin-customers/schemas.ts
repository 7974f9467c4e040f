import Joi from 'joi';
import { EMAIL_MARKETING_STATES } from '../../services/customers/customers.js';
import { email, text } from '../schemas.js';

const tag = Joi.string().trim().min(1).max(255).pattern(/^[^,]*$/, 'no commas');

/** PATCH /admin/customers/{id}: any subset; null clears an optional field. */
export const updateCustomerPayload = Joi.object({
  email: email(),
  firstName: text(255).allow(null, ''),
  lastName: text(255).allow(null, ''),
  phone: text(64).allow(null, ''),
  tags: Joi.array().items(tag).max(250).unique(),
  note: text(5000).allow(null, ''),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES)
}).min(1);

export const listCustomersQuery = {
  q: Joi.string().trim().max(254).allow(''),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES),
  tag: Joi.string().trim().max(255)
};
