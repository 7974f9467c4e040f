import Joi from 'joi';
import { ORDER_STATUS_FILTERS } from '../../services/orders/orders.js';
import { id, paginationQuery, text } from '../schemas.js';

export const listOrdersQuery = Joi.object({
  ...paginationQuery,
  status: Joi.string().valid(...ORDER_STATUS_FILTERS),
  q: Joi.string().trim().max(254).allow('')
});

export const fulfillmentPayload = Joi.object({
  items: Joi.array()
    .items(Joi.object({ orderItemId: id().required(), quantity: Joi.number().integer().min(1).max(1_000_000).required() }))
    .max(500),
  trackingCompany: text(100).allow('', null),
  trackingNumber: text(100).allow('', null),
  trackingUrl: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000).allow('', null),
  notifyCustomer: Joi.boolean()
}).allow(null);
