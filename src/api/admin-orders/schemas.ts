import Joi from 'joi';
import { FULFILLMENT_STATUSES, ORDER_STATUSES, ORDER_STATUS_FILTERS, PAYMENT_STATUSES } from '../../services/orders/orders.js';
import { PROVIDER_NAMES } from '../../services/payments/providers.js';
import { emailValue, id, idValue, paginationQuery, responseObject, text, timestamp } from '../schemas.js';

export const listOrdersQuery = Joi.object({
  ...paginationQuery,
  status: Joi.string().valid(...ORDER_STATUS_FILTERS),
  q: Joi.string().trim().max(254).allow('')
});

export const fulfillmentPayload = Joi.object({
  items: Joi.array()
    .items(Joi.object({ orderItemId: id().required(), quantity: Joi.number().integer().min(1).max(1_000_000).required() }))
    .min(1)
    .max(500)
    .description('absent: every unfulfilled item; an empty list is refused rather than read as everything'),
  trackingCompany: text(100).allow('', null),
  trackingNumber: text(100).allow('', null),
  trackingUrl: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000).allow('', null),
  notifyCustomer: Joi.boolean()
}).allow(null);

/** An address as the checkout took it (src/api/storefront-carts/schemas.ts): optional lines are absent when not given. */
export const orderAddressResource = responseObject({
  firstName: Joi.string().required(),
  lastName: Joi.string().required(),
  line1: Joi.string().required(),
  line2: Joi.string().allow('', null),
  city: Joi.string().required(),
  region: Joi.string().allow('', null),
  postalCode: Joi.string().required(),
  country: Joi.string().length(2).required(),
  phone: Joi.string().allow('', null)
}).label('Address');

/** A shipping method with what it costs this cart or order (free over its threshold): offered, chosen, or paid. */
export const pricedShippingMethodResource = responseObject({
  id: Joi.string().required(),
  name: Joi.string().required(),
  price: Joi.number().integer().required()
}).label('PricedShippingMethod');

export const orderItemResource = responseObject({
  id: idValue().required(),
  productId: idValue().allow(null).required(),
  variantId: idValue().allow(null).required(),
  title: Joi.string().required(),
  sku: Joi.string().allow(null).required(),
  quantity: Joi.number().integer().required(),
  unitPrice: Joi.number().integer().required(),
  lineTotal: Joi.number().integer().required(),
  fulfilledQuantity: Joi.number().integer().required()
}).label('OrderItem');

export const fulfillmentResource = responseObject({
  id: idValue().required(),
  items: Joi.array()
    .items(responseObject({ orderItemId: idValue().required(), quantity: Joi.number().integer().required() }))
    .required(),
  trackingCompany: Joi.string().allow(null).required(),
  trackingNumber: Joi.string().allow(null).required(),
  trackingUrl: Joi.string().allow(null).required(),
  notifyCustomer: Joi.boolean().required(),
  createdAt: timestamp().required()
}).label('Fulfillment');

const orderSummaryKeys = {
  id: idValue().required(),
  number: Joi.number().integer().required(),
  email: emailValue().required(),
  customerId: idValue().allow(null).required(),
  status: Joi.string().valid(...ORDER_STATUSES).required(),
  paymentStatus: Joi.string().valid(...PAYMENT_STATUSES).required(),
  amountRefunded: Joi.number().integer().min(0).required().description('refunded so far, minor units (the total once refunded)'),
  fulfillmentStatus: Joi.string().valid(...FULFILLMENT_STATUSES).required(),
  currency: Joi.string().length(3).required(),
  subtotal: Joi.number().integer().required(),
  discountTotal: Joi.number().integer().required(),
  shippingTotal: Joi.number().integer().required(),
  total: Joi.number().integer().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
};

/** An order in lists (and a customer's recent orders): no items, no addresses. */
export const orderSummaryResource = responseObject(orderSummaryKeys).label('OrderSummary');

export const orderResource = responseObject({
  ...orderSummaryKeys,
  paymentProvider: Joi.string().valid(...PROVIDER_NAMES).required(),
  discountCode: Joi.string().allow(null).required(),
  shippingMethod: pricedShippingMethodResource.allow(null).required(),
  shippingAddress: orderAddressResource.required(),
  billingAddress: orderAddressResource.allow(null).required(),
  items: Joi.array().items(orderItemResource).required(),
  fulfillments: Joi.array().items(fulfillmentResource).required(),
  trackingUrl: Joi.string().uri().required()
}).label('Order');

export const orderListResponse = responseObject({ orders: Joi.array().items(orderSummaryResource).required() });
export const orderResponse = responseObject({ order: orderResource.required() });
export const fulfillmentCreatedResponse = responseObject({ fulfillment: fulfillmentResource.required(), order: orderResource.required() });
