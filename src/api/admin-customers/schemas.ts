import Joi from 'joi';
import { CUSTOMER_DEFAULT_SORT, CUSTOMER_SORTS, EMAIL_MARKETING_STATES } from '../../services/customers/index.js';
import { sortValues } from '../../platform/pagination.js';
import { CUSTOMERS_EXPORT_JOB_TYPE } from '../../services/customers/index.js';
import { CUSTOMERS_IMPORT_JOB_TYPE } from '../../services/customers/index.js';
import { JOB_STATUSES } from '../../services/job-history/index.js';
import { orderSummaryResource } from '../admin-orders/schemas.js';
import { email, emailValue, idValue, responseObject, sortQuery, text, timestamp } from '../schemas.js';

const tag = Joi.string().trim().min(1).max(255).pattern(/^[^,]*$/, 'no commas');

/** PATCH /admin/customers/{id}: any subset; null clears an optional field. */
export const updateCustomerPayload = Joi.object({
  email: email(),
  firstName: text(255).allow(null, ''),
  lastName: text(255).allow(null, ''),
  phone: text(64).allow(null, ''),
  tags: Joi.array().items(tag).max(250).unique(),
  note: text(5000).allow(null, ''),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES),
  taxExempt: Joi.boolean().description('pays no tax at checkout (matched by the checkout email)')
}).min(1);

/** POST /admin/customers: the email, and any of the rest. */
export const createCustomerPayload = Joi.object({
  email: email().required(),
  firstName: text(255).allow(null, ''),
  lastName: text(255).allow(null, ''),
  phone: text(64).allow(null, ''),
  tags: Joi.array().items(tag).max(250).unique(),
  note: text(5000).allow(null, ''),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES)
});

export const listCustomersQuery = {
  q: Joi.string().trim().max(254).allow(''),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES),
  tag: Joi.string().trim().max(255),
  sort: sortQuery(sortValues(CUSTOMER_SORTS), CUSTOMER_DEFAULT_SORT, {
    createdAt: 'when the customer was created (one import batch shares it: then by id)',
    email: 'the email address',
    name: 'last name, then first name, case-insensitive (customers without a name first)',
    totalSpent: 'the amount spent'
  })
};

export const customerResource = responseObject({
  id: idValue().required(),
  email: emailValue().required(),
  firstName: Joi.string().allow(null).required(),
  lastName: Joi.string().allow(null).required(),
  phone: Joi.string().allow(null).required(),
  tags: Joi.array().items(Joi.string()).required(),
  note: Joi.string().allow(null).required(),
  emailMarketing: Joi.string().valid(...EMAIL_MARKETING_STATES).required(),
  emailMarketingUpdatedAt: timestamp().allow(null).required(),
  emailMarketingSource: Joi.string().allow(null).required(),
  ordersCount: Joi.number().integer().required(),
  totalSpent: Joi.number().integer().required(),
  lastOrderAt: timestamp().allow(null).required(),
  taxExempt: Joi.boolean().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('Customer');

export const customerListResponse = responseObject({ customers: Joi.array().items(customerResource).required() });
export const customerResponse = responseObject({ customer: customerResource.required() });
export const customerDetailResponse = responseObject({
  customer: customerResource.required(),
  recentOrders: Joi.array().items(orderSummaryResource).required()
});

/** A tracked job run as /admin/jobs shows it; here the import or export just queued. */
const jobResource = responseObject({
  id: idValue().required(),
  type: Joi.string().valid(CUSTOMERS_IMPORT_JOB_TYPE, CUSTOMERS_EXPORT_JOB_TYPE).required(),
  status: Joi.string().valid(...JOB_STATUSES).required(),
  progress: Joi.object().unknown(true).required(),
  result: Joi.object().unknown(true).allow(null).required(),
  error: Joi.string().allow(null).required(),
  createdAt: timestamp().required(),
  startedAt: timestamp().allow(null).required(),
  finishedAt: timestamp().allow(null).required()
}).label('CustomerTransferJob');

export const customerTransferJobResponse = responseObject({ job: jobResource.required() });
