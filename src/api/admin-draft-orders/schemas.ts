import Joi from 'joi';
import { DRAFT_STATUSES } from '../../services/draft-orders/index.js';
import { DRAFT_PAYMENT_CHOICES } from '../../use-cases/complete-draft-order.js';
import { orderAddressResource, orderResource, taxLines } from '../admin-orders/schemas.js';
import { address } from '../storefront-carts/schemas.js';
import { email, id, idValue, money, paginationQuery, responseObject, text, timestamp } from '../schemas.js';

const quantity = () => Joi.number().integer().min(1).max(10_000);

const lineInput = Joi.alternatives(
  Joi.object({ variantId: id().required(), quantity: quantity().required() }),
  Joi.object({ title: text(255).min(1).required(), price: money().required(), quantity: quantity().required(), sku: text(100).allow(null, '') })
);

const manualDiscount = Joi.object({
  type: Joi.string().valid('percentage', 'fixed_amount').required(),
  value: Joi.when('type', { is: 'percentage', then: Joi.number().greater(0).max(100).required(), otherwise: money().required() })
});

const draftFields = {
  email: email().allow(null),
  customerId: id().allow(null),
  lines: Joi.array().items(lineInput).max(250),
  shippingAddress: address.allow(null),
  shippingRateId: text(100).min(1).allow(null),
  customShipping: Joi.object({ title: text(100).min(1).required(), price: money().required() }).allow(null),
  discountCode: Joi.string().trim().min(1).max(64).allow(null),
  manualDiscount: manualDiscount.allow(null),
  note: text(5000).allow('', null),
  tags: Joi.array().items(text(64).min(1)).max(50)
};

export const createDraftPayload = Joi.object({ ...draftFields, lines: draftFields.lines.default([]) })
  .oxor('email', 'customerId')
  .oxor('shippingRateId', 'customShipping')
  .oxor('discountCode', 'manualDiscount');
export const updateDraftPayload = Joi.object(draftFields).oxor('shippingRateId', 'customShipping').oxor('discountCode', 'manualDiscount').min(1);

export const listDraftsQuery = Joi.object({ ...paginationQuery, status: Joi.string().valid(...DRAFT_STATUSES) });

export const completeDraftPayload = Joi.object({
  payment: Joi.string()
    .valid(...DRAFT_PAYMENT_CHOICES)
    .required()
    .description('mark_paid: a manual payment collected; pending: to be collected; invoice: email the customer a payment link')
});

const draftLineResource = responseObject({
  variantId: idValue().allow(null).required(),
  productId: idValue().allow(null).required(),
  title: Joi.string().required(),
  sku: Joi.string().allow(null).required(),
  quantity: Joi.number().integer().required(),
  unitPrice: Joi.number().integer().required(),
  lineTotal: Joi.number().integer().required(),
  discountAmount: Joi.number().integer().required().description("the line's share of the order discount"),
  taxAmount: Joi.number().integer().required().description('the sum of its tax lines'),
  taxLines: taxLines()
}).label('DraftOrderLine');

export const draftOrderResource = responseObject({
  id: idValue().required(),
  status: Joi.string()
    .valid(...DRAFT_STATUSES)
    .required(),
  email: Joi.string().allow(null).required(),
  customerId: idValue().allow(null).required(),
  currency: Joi.string().required(),
  lines: Joi.array().items(draftLineResource).required(),
  shippingAddress: orderAddressResource.allow(null).required(),
  shipping: responseObject({ rateId: Joi.string().allow(null).required(), title: Joi.string().required(), price: Joi.number().integer().required() }).allow(null).required(),
  discountCode: Joi.string().allow(null).required(),
  manualDiscount: responseObject({ type: Joi.string().valid('percentage', 'fixed_amount').required(), value: Joi.number().required() }).allow(null).required(),
  note: Joi.string().allow(null, '').required(),
  tags: Joi.array().items(Joi.string()).required(),
  subtotal: Joi.number().integer().required(),
  discountTotal: Joi.number().integer().required(),
  shippingTotal: Joi.number().integer().required(),
  taxTotal: Joi.number().integer().required().description("the draft's tax, computed as a checkout's at its shipping address"),
  pricesIncludeTax: Joi.boolean().required(),
  shippingTaxLines: taxLines().description("the shipping line's tax lines"),
  total: Joi.number().integer().required(),
  orderId: idValue().allow(null).required(),
  invoicedAt: timestamp().allow(null).required(),
  completedAt: timestamp().allow(null).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('DraftOrder');

export const draftOrderResponse = responseObject({ draftOrder: draftOrderResource.required() });
export const draftOrderListResponse = responseObject({ draftOrders: Joi.array().items(draftOrderResource).required() });
export const draftDeletedResponse = responseObject({ deleted: Joi.boolean().valid(true).required() });
export const completeDraftResponse = Joi.alternatives(
  responseObject({ order: orderResource.required() }),
  responseObject({ invoice: responseObject({ url: Joi.string().uri().required() }).required() })
);
