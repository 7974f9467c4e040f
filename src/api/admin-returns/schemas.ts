import Joi from 'joi';
import { RETURN_STATUSES } from '../../services/orders/index.js';
import { orderResource } from '../admin-orders/schemas.js';
import { id, idValue, responseObject, text, timestamp } from '../schemas.js';

const returnLines = () =>
  Joi.array()
    .items(Joi.object({ orderItemId: id().required(), quantity: Joi.number().integer().min(1).max(1_000_000).required() }))
    .min(1)
    .max(500);

export const returnPayload = Joi.object({ items: returnLines().required(), reason: text(500).min(1).required() });

export const receivePayload = Joi.object({
  items: returnLines().description('what came back; absent: everything requested'),
  restock: Joi.boolean().default(true),
  refund: Joi.boolean().default(false).description('refund the received items in the same step (owner or admin) and close the return'),
  notifyCustomer: Joi.boolean().default(true)
}).allow(null);

const lineResource = responseObject({ orderItemId: idValue().required(), quantity: Joi.number().integer().required() }).label('ReturnItem');

export const returnResource = responseObject({
  id: idValue().required(),
  orderId: idValue().required(),
  status: Joi.string().valid(...RETURN_STATUSES).required(),
  reason: Joi.string().required(),
  items: Joi.array().items(lineResource).required(),
  receivedItems: Joi.array().items(lineResource).allow(null).required(),
  restocked: Joi.boolean().required(),
  refundId: idValue().allow(null).required(),
  createdAt: timestamp().required(),
  receivedAt: timestamp().allow(null).required(),
  closedAt: timestamp().allow(null).required()
}).label('Return');

export const returnResponse = responseObject({ return: returnResource.required() });
export const receivedReturnResponse = responseObject({ return: returnResource.required(), order: orderResource.required() });
