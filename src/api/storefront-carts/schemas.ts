import Joi from 'joi';
import { email, id, text } from '../schemas.js';
import { MAX_LINE_QUANTITY } from '../../services/carts/carts.js';

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
export const shippingMethodPayload = Joi.object({ shippingMethodId: text(100).min(1).required(), country: country() });
export const shippingMethodsQuery = Joi.object({ country: country() });

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
  provider: Joi.string().valid('manual', 'stripe')
});
