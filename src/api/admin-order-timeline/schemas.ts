import Joi from 'joi';
import { ACTOR_TYPES, ORDER_EVENT_TYPES } from '../../services/orders/index.js';
import { idValue, paginationQuery, responseObject, text, timestamp } from '../schemas.js';

export const timelineQuery = Joi.object({ ...paginationQuery });

export const orderEventResource = responseObject({
  id: idValue().required(),
  type: Joi.string().valid(...ORDER_EVENT_TYPES).required(),
  actor: responseObject({
    type: Joi.string().valid(...ACTOR_TYPES).required(),
    userId: idValue().allow(null).required()
  })
    .label('OrderEventActor')
    .required(),
  data: Joi.object().unknown(true).required().description("what changed (the type's own fields: amounts, items, reason, template, ids)"),
  body: Joi.string().allow(null).required().description("a note's text"),
  isPublic: Joi.boolean().required().description('a public note shows on the public tracking page'),
  createdAt: timestamp().required(),
  updatedAt: timestamp().allow(null).required()
}).label('OrderEvent');

export const timelineResponse = responseObject({ events: Joi.array().items(orderEventResource).required() });
export const orderEventResponse = responseObject({ event: orderEventResource.required() });

export const notePayload = Joi.object({ body: text(5000).min(1).required(), isPublic: Joi.boolean().default(false) });
export const notePatchPayload = Joi.object({ body: text(5000).min(1), isPublic: Joi.boolean() }).min(1);
