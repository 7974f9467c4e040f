import Joi from 'joi';
import { responseObject } from '../schemas.js';

export const invoiceParams = Joi.object({ token: Joi.string().trim().min(10).max(200).required() });

export const invoiceResponse = responseObject({
  invoice: responseObject({
    kind: Joi.string().valid('draft_order', 'order_balance').required().description("draft_order: a draft's invoice (paying it makes the order); order_balance: what an edit added to a paid order"),
    orderNumber: Joi.string().allow(null).required().description('the order a balance is owed on (#N); null for a draft'),
    status: Joi.string().valid('open', 'paid').required(),
    email: Joi.string().allow(null).required(),
    currency: Joi.string().required(),
    lines: Joi.array()
      .items(responseObject({
          title: Joi.string().required(),
          quantity: Joi.number().integer().required(),
          unitPrice: Joi.number().integer().required(),
          lineTotal: Joi.number().integer().required(),
          taxAmount: Joi.number().integer().required()
        }))
      .required(),
    subtotal: Joi.number().integer().required(),
    discountTotal: Joi.number().integer().required(),
    shippingTotal: Joi.number().integer().required(),
    taxTotal: Joi.number().integer().required(),
    pricesIncludeTax: Joi.boolean().required(),
    total: Joi.number().integer().required()
  })
    .label('Invoice')
    .required(),
  store: responseObject({ name: Joi.string().required() }).required()
});

export const invoicePaymentResponse = responseObject({
  payment: responseObject({
    provider: Joi.string().valid('stripe').required(),
    paymentIntentId: Joi.string().required(),
    clientSecret: Joi.string().allow(null).required(),
    amount: Joi.number().integer().required(),
    currency: Joi.string().required()
  }).required()
});
