import Joi from 'joi';
import { responseObject } from '../schemas.js';

export const invoiceParams = Joi.object({ token: Joi.string().trim().min(10).max(200).required() });

export const invoiceResponse = responseObject({
  invoice: responseObject({
    status: Joi.string().valid('open', 'paid').required(),
    email: Joi.string().allow(null).required(),
    currency: Joi.string().required(),
    lines: Joi.array()
      .items(responseObject({ title: Joi.string().required(), quantity: Joi.number().integer().required(), unitPrice: Joi.number().integer().required(), lineTotal: Joi.number().integer().required() }))
      .required(),
    subtotal: Joi.number().integer().required(),
    discountTotal: Joi.number().integer().required(),
    shippingTotal: Joi.number().integer().required(),
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
