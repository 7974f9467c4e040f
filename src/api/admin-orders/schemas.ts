import Joi from 'joi';
import { FULFILLMENT_STATUSES, ORDER_DEFAULT_SORT, ORDER_SORTS, ORDER_STATUSES, ORDER_STATUS_FILTERS, PAYMENT_STATUSES } from '../../services/orders/index.js';
import { sortValues } from '../../platform/pagination.js';
import { PROVIDER_NAMES } from '../../services/payments/index.js';
import { emailValue, id, idValue, paginationQuery, responseObject, sortQuery, text, timestamp } from '../schemas.js';

export const listOrdersQuery = Joi.object({
  ...paginationQuery,
  status: Joi.string()
    .valid(...ORDER_STATUS_FILTERS)
    .description('an order status, or (kept for older clients) a payment or fulfilment status: prefer paymentStatus and fulfillmentStatus'),
  paymentStatus: Joi.string().valid(...PAYMENT_STATUSES),
  fulfillmentStatus: Joi.string().valid(...FULFILLMENT_STATUSES),
  q: Joi.string().trim().max(254).allow(''),
  sort: sortQuery(sortValues(ORDER_SORTS), ORDER_DEFAULT_SORT, {
    createdAt: 'when the order was placed',
    number: 'the order number',
    total: 'the order total'
  })
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

/** One tax on a line (docs/taxes.md): rate in basis points (2000 = 20 %), amount in minor units, rounded per line half up. */
export const taxLineResource = responseObject({
  name: Joi.string().required(),
  rate: Joi.number().integer().min(0).required().description('basis points'),
  amount: Joi.number().integer().required(),
  jurisdiction: Joi.string().allow('').required().description("where the tax is due: 'US-CA', 'DE', …")
}).label('TaxLine');

export const taxLines = () => Joi.array().items(taxLineResource).required();

export const orderItemResource = responseObject({
  id: idValue().required(),
  productId: idValue().allow(null).required(),
  variantId: idValue().allow(null).required(),
  title: Joi.string().required(),
  sku: Joi.string().allow(null).required(),
  quantity: Joi.number().integer().required(),
  unitPrice: Joi.number().integer().required(),
  lineTotal: Joi.number().integer().required(),
  fulfilledQuantity: Joi.number().integer().required(),
  refundedQuantity: Joi.number().integer().required().description('units refunded (or being refunded)'),
  returnedQuantity: Joi.number().integer().required().description('units on requested or received returns'),
  restockedQuantity: Joi.number()
    .integer()
    .min(0)
    .required()
    .description('units put back on the shelf so far by cancels, refunds and returns together: never more than quantity (each unit goes back once)'),
  discountAmount: Joi.number().integer().min(0).required().description("the item's share of an order discount (its taxable amount is lineTotal less it)"),
  taxLines: taxLines()
}).label('OrderItem');

export const refundResource = responseObject({
  id: idValue().required(),
  status: Joi.string().valid('pending', 'succeeded', 'failed').required(),
  source: Joi.string().valid('admin', 'stripe', 'edit').required().description("stripe: made in Stripe's dashboard, seen through a webhook; edit: the difference an order edit or exchange gave back"),
  amount: Joi.number().integer().required(),
  shipping: Joi.number().integer().required(),
  taxAmount: Joi.number().integer().min(0).required().description('tax given back, part of amount (never more, over all refunds, than the tax collected)'),
  items: Joi.array()
    .items(
      responseObject({
        orderItemId: idValue().required(),
        quantity: Joi.number().integer().required(),
        restock: Joi.boolean().required().description('asked to put the units back on the shelf'),
        restockedQuantity: Joi.number()
          .integer()
          .min(0)
          .required()
          .description('units this refund put back: 0 until it succeeds, and fewer than quantity when a cancel or a return already put some back'),
        amount: Joi.number().integer().required()
      }).label('RefundItem')
    )
    .required(),
  reason: Joi.string().allow(null).required(),
  stripeRefundId: Joi.string().allow(null).required().description("the Stripe refund (the first one when it went to several payments: see payments)"),
  payments: Joi.array()
    .items(
      responseObject({
        provider: Joi.string().valid('stripe', 'manual').required(),
        paymentIntentId: Joi.string().allow(null).required(),
        amount: Joi.number().integer().required(),
        stripeRefundId: Joi.string().allow(null).required()
      })
    )
    .required()
    .description("the payments the refund went to, newest first (a balance paid by link is a payment of its own), one Stripe refund each; empty on refunds from before"),
  returnId: idValue().allow(null).required(),
  createdAt: timestamp().required()
}).label('Refund');

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
  taxTotal: Joi.number().integer().min(0).required().description('tax charged: included in the prices when pricesIncludeTax, else added to the total'),
  total: Joi.number().integer().required(),
  pricesIncludeTax: Joi.boolean().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
};

/** An order in lists (and a customer's recent orders): no items, no addresses. */
export const orderSummaryResource = responseObject(orderSummaryKeys).label('OrderSummary');

export const orderResource = responseObject({
  ...orderSummaryKeys,
  cancelledAt: timestamp().allow(null).required(),
  cancelReason: Joi.string().allow(null).required(),
  paymentProvider: Joi.string().valid(...PROVIDER_NAMES).required(),
  discountCode: Joi.string().allow(null).required(),
  shippingMethod: pricedShippingMethodResource.allow(null).required(),
  shippingTaxLines: taxLines().description("the shipping line's tax lines"),
  shippingAddress: orderAddressResource.required(),
  billingAddress: orderAddressResource.allow(null).required(),
  items: Joi.array().items(orderItemResource).required(),
  fulfillments: Joi.array().items(fulfillmentResource).required(),
  refunds: Joi.array().items(refundResource).required(),
  trackingUrl: Joi.string().uri().required()
}).label('Order');

export const orderListResponse = responseObject({ orders: Joi.array().items(orderSummaryResource).required() });
export const orderResponse = responseObject({ order: orderResource.required() });
export const fulfillmentCreatedResponse = responseObject({ fulfillment: fulfillmentResource.required(), order: orderResource.required() });

export const markPaidPayload = Joi.object({
  reference: text(255).allow(''),
  note: text(2000).allow('')
}).allow(null);

export const cancelPayload = Joi.object({
  reason: text(500).min(1).required(),
  restock: Joi.boolean().default(true),
  refund: Joi.boolean().default(true).description('refund what was paid (a Stripe authorisation is voided either way)'),
  notifyCustomer: Joi.boolean().default(true)
});
