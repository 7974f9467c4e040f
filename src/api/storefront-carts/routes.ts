import type { Request } from '@hapi/hapi';
import {
  addCartItem,
  applyCartDiscount,
  createCart,
  getCart,
  listShippingMethods,
  removeCartDiscount,
  removeCartItem,
  selectShippingMethod,
  updateCartItem,
  type CartItemInput
} from '../../services/checkout/index.js';
import { storefrontOf } from '../plugins/auth.js';
import { storefrontRoute } from '../route-helpers.js';
import {
  cartItem,
  cartItemParams,
  cartParams,
  cartReadQuery,
  cartResponse,
  createCartPayload,
  discountPayload,
  shippingMethodPayload,
  shippingMethodsQuery,
  shippingMethodsResponse,
  updateItemPayload
} from './schemas.js';

const store = (request: Request) => storefrontOf(request).storeId;
const cartId = (request: Request) => request.params.cartId as string;
const TAGS = ['carts'];

export const createCartRoute = storefrontRoute({
  method: 'POST',
  path: '/storefront/carts',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Create a cart (optionally with email and items); its id is the shopper capability, unguessable',
    tags: TAGS,
    validate: { payload: createCartPayload },
    response: { status: { 201: cartResponse } },
    handler: async (request, h) => {
      const body = (request.payload ?? {}) as { email?: string | null; items?: CartItemInput[] };
      return h.response(await createCart(request.server.app.ctx, store(request), { email: body.email ?? undefined, items: body.items })).code(201);
    }
  }
});

export const getCartRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/carts/{cartId}',
  options: {
    description:
      'A cart with its lines and server-computed totals (integer minor units), each line and the shipping line with its taxLines. ' +
      'Taxed at the checkout address, else the country chosen with the shipping method; ?country= (and ?region=) taxes it as shipped there, for an estimate before checkout',
    tags: TAGS,
    validate: { params: cartParams, query: cartReadQuery },
    response: { status: { 200: cartResponse } },
    handler: (request) => getCart(request.server.app.ctx, store(request), cartId(request), request.query as { country?: string; region?: string })
  }
});

export const listShippingMethodsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/carts/{cartId}/shipping-methods',
  options: {
    description: "Shipping methods eligible for this cart: the cart's country (or ?country=) and free-over thresholds applied",
    tags: TAGS,
    validate: { params: cartParams, query: shippingMethodsQuery },
    response: { status: { 200: shippingMethodsResponse } },
    handler: (request) => listShippingMethods(request.server.app.ctx, store(request), cartId(request), (request.query as { country?: string }).country)
  }
});

export const addCartItemRoute = storefrontRoute({
  method: 'POST',
  path: '/storefront/carts/{cartId}/items',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Add a variant; merges with an existing line of that variant. 409 cart_not_open once completed',
    tags: TAGS,
    validate: { params: cartParams, payload: cartItem },
    response: { status: { 200: cartResponse } },
    handler: (request) => addCartItem(request.server.app.ctx, store(request), cartId(request), request.payload as CartItemInput)
  }
});

export const updateCartItemRoute = storefrontRoute({
  method: 'PATCH',
  path: '/storefront/carts/{cartId}/items/{itemId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Set a line quantity; 0 removes the line',
    tags: TAGS,
    validate: { params: cartItemParams, payload: updateItemPayload },
    response: { status: { 200: cartResponse } },
    handler: (request) =>
      updateCartItem(request.server.app.ctx, store(request), cartId(request), request.params.itemId as string, (request.payload as { quantity: number }).quantity)
  }
});

export const removeCartItemRoute = storefrontRoute({
  method: 'DELETE',
  path: '/storefront/carts/{cartId}/items/{itemId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Remove a line',
    tags: TAGS,
    validate: { params: cartItemParams },
    response: { status: { 200: cartResponse } },
    handler: (request) => removeCartItem(request.server.app.ctx, store(request), cartId(request), request.params.itemId as string)
  }
});

export const applyDiscountRoute = storefrontRoute({
  method: 'POST',
  path: '/storefront/carts/{cartId}/discount',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Apply a discount code; 422 discount_not_applicable with the reason in details[0].message',
    tags: TAGS,
    validate: { params: cartParams, payload: discountPayload },
    response: { status: { 200: cartResponse } },
    handler: (request) => applyCartDiscount(request.server.app.ctx, store(request), cartId(request), (request.payload as { code: string }).code)
  }
});

export const removeDiscountRoute = storefrontRoute({
  method: 'DELETE',
  path: '/storefront/carts/{cartId}/discount',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Remove the discount code',
    tags: TAGS,
    validate: { params: cartParams },
    response: { status: { 200: cartResponse } },
    handler: (request) => removeCartDiscount(request.server.app.ctx, store(request), cartId(request))
  }
});

export const selectShippingMethodRoute = storefrontRoute({
  method: 'POST',
  path: '/storefront/carts/{cartId}/shipping-method',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Choose a shipping method (optionally with the destination country)',
    tags: TAGS,
    validate: { params: cartParams, payload: shippingMethodPayload },
    response: { status: { 200: cartResponse } },
    handler: (request) =>
      selectShippingMethod(request.server.app.ctx, store(request), cartId(request), request.payload as { shippingMethodId: string; country?: string })
  }
});
