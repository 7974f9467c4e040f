import Joi from 'joi';
import { orderResource, refundResource } from '../admin-orders/schemas.js';
import { id, money, responseObject, text } from '../schemas.js';

export const refundQuery = Joi.object({
  dryRun: Joi.boolean().default(false).description('true: answer the amounts this refund would move (200 { preview }), write nothing')
});

export const refundPayload = Joi.object({
  items: Joi.array()
    .items(
      Joi.object({
        orderItemId: id().required(),
        quantity: Joi.number().integer().min(1).max(1_000_000).required(),
        restock: Joi.boolean().default(false)
      })
    )
    .min(1)
    .max(500),
  shipping: money().description('shipping to refund, minor units'),
  amount: money().min(1).description("the amount to refund; absent: the items' share of what was paid plus shipping"),
  reason: text(500).min(1).required(),
  notifyCustomer: Joi.boolean().default(true)
});

export const refundPreviewResource = responseObject({
  amount: Joi.number().integer().required(),
  itemsAmount: Joi.number().integer().required(),
  shipping: Joi.number().integer().required(),
  items: Joi.array()
    .items(
      responseObject({
        orderItemId: Joi.string().uuid().required(),
        quantity: Joi.number().integer().required(),
        restock: Joi.boolean().required(),
        amount: Joi.number().integer().required()
      }).label('RefundPreviewItem')
    )
    .required(),
  taxAmount: Joi.number().integer().min(0).required().description('tax this refund gives back (part of amount)'),
  refundable: Joi.number().integer().required().description('what is left to refund now'),
  refundableAfter: Joi.number().integer().required()
}).label('RefundPreview');

export const refundCreatedResponse = responseObject({ refund: refundResource.required(), order: orderResource.required() });
export const refundPreviewResponse = responseObject({ preview: refundPreviewResource.required() });
