import Joi from 'joi';
import { DISPUTE_STATUSES } from '../../services/orders/index.js';
import { idValue, money, responseObject, timestamp } from '../schemas.js';

export const disputeResource = responseObject({
  id: idValue().required(),
  orderId: idValue().required(),
  stripeDisputeId: Joi.string().required().description("Stripe's dispute id (dp_…): answer it with evidence in Stripe's dashboard"),
  amount: money().required().description('disputed, minor units'),
  currency: Joi.string().required(),
  reason: Joi.string().required().description("the bank's reason as Stripe gives it (fraudulent, product_not_received, …)"),
  status: Joi.string()
    .valid(...DISPUTE_STATUSES)
    .required()
    .description(
      'warning_* is an inquiry (no money taken, refunds allowed); needs_response and under_review hold the disputed amount and refuse refunds; won gives it back; lost keeps it with the bank (no longer refundable)'
    ),
  evidenceDueBy: timestamp().allow(null).required(),
  closedAt: timestamp().allow(null).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('OrderDispute');

export const disputesResponse = responseObject({ disputes: Joi.array().items(disputeResource).required() });
