import Joi from 'joi';
import { CART_STATUSES, MAX_LINE_QUANTITY, SESSION_STATUSES } from '../../services/checkout/index.js';
import { PROVIDER_NAMES } from '../../services/payments/index.js';
import { orderResource, pricedShippingMethodResource, taxLines } from '../admin-orders/schemas.js';
import { email, emailValue, id, idValue, responseObject, text, timestamp } from '../schemas.js';
import { estimateResource } from '../admin-shipping/schemas.js';
import { RATE_TYPES } from '../../services/shipping/index.js';

export const cartParams = Joi.object({ cartId: id().required() });
export const cartItemParams = Joi.object({ cartId: id().required(), itemId: id().required() });
export const sessionParams = Joi.object({ sessionId: id().required() });

const country = () => Joi.string().trim().uppercase().pattern(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2');
const quantity = () => Joi.number().integer().min(1).max(MAX_LINE_QUANTITY);

export const cartItem = Joi.object({ variantId: id().required(), quantity: quantity().required() });

export const createCartPayload = Joi.object({
  email: email().allow(null),
  items: Joi.array().items(cartItem).max(100)
}).allow(null);

export const updateItemPayload = Joi.object({ quantity: Joi.number().integer().min(0).max(MAX_LINE_QUANTITY).required() });
export const discountPayload = Joi.object({ code: Joi.string().trim().min(1).max(64).required() });
/** The destination part of an address: ISO 3166-2 region (`US-CA` or `CA`), postcode. */
const destinationFields = {
  region: text(100).allow('', null).description('ISO 3166-2 subdivision, US-CA or CA'),
  postalCode: text(20).allow('', null)
};
export const shippingMethodPayload = Joi.object({
  shippingMethodId: text(100).min(1).required(),
  country: country().description('sets the cart destination (with region and postalCode) as it chooses'),
  ...destinationFields
}).with('region', 'country').with('postalCode', 'country');
export const shippingMethodsQuery = Joi.object({ country: country(), ...destinationFields }).with('region', 'country').with('postalCode', 'country');
export const shippingDestinationPayload = Joi.object({ country: country().required(), ...destinationFields });
/** A cart read may name where the shopper is (before checkout knows the address): the tax shown is that place's. */
export const cartReadQuery = Joi.object({
  country: country().description('tax the cart as shipped to this country (ISO 3166-1 alpha-2)'),
  region: Joi.string().trim().uppercase().pattern(/^([A-Z]{2}-)?[A-Z0-9]{1,3}$/, 'ISO 3166-2 subdivision').description("'CA' or 'US-CA'; with country")
});

export const address = Joi.object({
  firstName: text(100).min(1).required(),
  lastName: text(100).min(1).required(),
  line1: text(200).min(1).required(),
  line2: text(200).allow('', null),
  city: text(100).min(1).required(),
  region: text(100).allow('', null),
  postalCode: text(20).min(1).required(),
  country: country().required(),
  phone: text(40).allow('', null)
});

export const checkoutSessionPayload = Joi.object({
  email: email().required(),
  shippingAddress: address.required(),
  billingAddress: address.allow(null),
  provider: Joi.string().valid(...PROVIDER_NAMES)
});

export const cartLineResource = responseObject({
  id: idValue().required(),
  variantId: idValue().required(),
  productId: idValue().required(),
  title: Joi.string().required(),
  sku: Joi.string().allow(null).required(),
  quantity: Joi.number().integer().required(),
  unitPrice: Joi.number().integer().required(),
  lineTotal: Joi.number().integer().required(),
  discountAmount: Joi.number().integer().min(0).required().description("the line's share of an order discount"),
  taxLines: taxLines()
}).label('CartLine');

/**
 * A cart at current prices; totals in integer minor units, `total = subtotal - discountTotal + shippingTotal`
 * (+ taxTotal when prices exclude tax; docs/taxes.md).
 */
export const cartResource = responseObject({
  id: idValue().required(),
  status: Joi.string().valid(...CART_STATUSES).required(),
  currency: Joi.string().length(3).required(),
  email: emailValue().allow(null).required(),
  items: Joi.array().items(cartLineResource).required(),
  discountCode: Joi.string().allow(null).required(),
  subtotal: Joi.number().integer().required(),
  discountTotal: Joi.number().integer().required(),
  shippingMethod: pricedShippingMethodResource.allow(null).required(),
  shippingMethodDropped: responseObject({ id: Joi.string().required(), reason: Joi.string().required() })
    .label('ShippingMethodDropped')
    .allow(null)
    .required()
    .description('the chosen method a cart change (items, destination, the store zones) made inapplicable, and why; cleared when a method is chosen'),
  shippingRequired: Joi.boolean().required().description('false when the cart has lines and none of them ships: no method needed'),
  shippingDestination: responseObject({
    country: Joi.string().allow(null).required(),
    region: Joi.string().allow(null).required(),
    postalCode: Joi.string().allow(null).required()
  })
    .label('ShippingDestination')
    .required(),
  shippingTotal: Joi.number().integer().required(),
  shippingTaxLines: taxLines().description("the shipping line's tax lines"),
  taxTotal: Joi.number().integer().min(0).required(),
  total: Joi.number().integer().required(),
  pricesIncludeTax: Joi.boolean().required().description('prices (and shipping) include tax, VAT style: the tax lines say how much of them is tax'),
  expiresAt: timestamp().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('Cart');

export const cartResponse = responseObject({ cart: cartResource.required() });
export const shippingMethodOptionResource = responseObject({
  id: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string().valid(...RATE_TYPES).required(),
  price: Joi.number().integer().required(),
  estimate: estimateResource.allow(null).required(),
  zoneId: idValue().required()
}).label('ShippingMethodOption');

export const shippingMethodsResponse = responseObject({
  shippingMethods: Joi.array().items(shippingMethodOptionResource).required(),
  shippingRequired: Joi.boolean().required()
});

/** `clientSecret` is there only for provider stripe (what Stripe.js confirms the payment with). */
export const checkoutSessionResource = responseObject({
  id: idValue().required(),
  status: Joi.string().valid(...SESSION_STATUSES).required(),
  provider: Joi.string().valid(...PROVIDER_NAMES).required(),
  amount: Joi.number().integer().required(),
  currency: Joi.string().length(3).required(),
  clientSecret: Joi.string(),
  expiresAt: timestamp().required(),
  createdAt: timestamp().required()
}).label('CheckoutSession');

export const checkoutSessionResponse = responseObject({ checkoutSession: checkoutSessionResource.required(), cart: cartResource.required() });
export const confirmedOrderResponse = responseObject({ order: orderResource.required(), trackingUrl: Joi.string().uri().required() });
