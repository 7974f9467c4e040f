import Joi from 'joi';
import { FULFILLMENT_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES } from '../../services/orders/index.js';
import { responseObject, timestamp } from '../schemas.js';

export const trackingParams = Joi.object({ trackingToken: Joi.string().max(200).required() });

/** What anyone holding the tracking token may see: no email, no address, no prices per line. */
export const trackedOrderResponse = responseObject({
  order: responseObject({
    number: Joi.number().integer().required(),
    status: Joi.string().valid(...ORDER_STATUSES).required(),
    paymentStatus: Joi.string().valid(...PAYMENT_STATUSES).required(),
    fulfillmentStatus: Joi.string().valid(...FULFILLMENT_STATUSES).required(),
    createdAt: timestamp().required(),
    items: Joi.array()
      .items(
        responseObject({
          title: Joi.string().required(),
          quantity: Joi.number().integer().required(),
          fulfilledQuantity: Joi.number().integer().required()
        }).label('TrackedOrderItem')
      )
      .required(),
    total: Joi.number().integer().required(),
    amountRefunded: Joi.number().integer().min(0).required().description('refunded so far (the total once refunded)'),
    currency: Joi.string().length(3).required(),
    cancelledAt: timestamp().allow(null).required(),
    fulfillments: Joi.array()
      .items(
        responseObject({
          trackingCompany: Joi.string().allow(null).required(),
          trackingNumber: Joi.string().allow(null).required(),
          trackingUrl: Joi.string().allow(null).required(),
          createdAt: timestamp().required()
        }).label('TrackedFulfillment')
      )
      .required(),
    notes: Joi.array()
      .items(responseObject({ body: Joi.string().required(), createdAt: timestamp().required() }).label('TrackedOrderNote'))
      .required()
      .description("the store's public notes on the order, oldest first")
  })
    .label('TrackedOrder')
    .required(),
  store: responseObject({ name: Joi.string().required() }).label('TrackedOrderStore').required()
});
