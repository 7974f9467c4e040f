import {
  addCartItem,
  applyCartDiscount,
  createCart,
  getCart,
  listShippingMethods,
  removeCartDiscount,
  removeCartItem,
  selectShippingMethod,
  setShippingDestination,
  updateCartItem,
  type CartItemInput,
  type DestinationInput
} from '../../services/checkout/index.js';
import { storefrontHandler } from '../handler.js';
import { storefrontRoute } from '../route-helpers.js';
import {
  cartItem,
  cartItemParams,
  cartParams,
  cartReadQuery,
  cartResponse,
  createCartPayload,
  discountPayload,
  shippingDestinationPayload,
  shippingMethodPayload,
  shippingMethodsQuery,
  shippingMethodsResponse,
  updateItemPayload
} from './schemas.js';

type CartParams = { cartId: string };
type CartItemParams = CartParams & { itemId: string };
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
    handler: storefrontHandler<{}, { email?: string | null; items?: CartItemInput[] } | null>(async ({ ctx, storeId, payload, h }) => {
      const body = payload ?? {};
      return h.response(await createCart(ctx, storeId, { email: body.email ?? undefined, items: body.items })).code(201);
    })
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
    handler: storefrontHandler<CartParams, unknown, { country?: string; region?: string }>(({ ctx, storeId, params, query }) => getCart(ctx, storeId, params.cartId, query))
  }
});

export const listShippingMethodsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/carts/{cartId}/shipping-methods',
  options: {
    description:
      "The store's shipping rates that apply to this cart, priced: its destination (or ?country=&region=&postalCode=) matched against the zones, its weight (lines that ship) and subtotal against the bands, free-over thresholds applied. A cart whose lines never ship needs none (empty, shippingRequired false)",
    tags: TAGS,
    validate: { params: cartParams, query: shippingMethodsQuery },
    response: { status: { 200: shippingMethodsResponse } },
    handler: storefrontHandler<CartParams, undefined, Partial<DestinationInput>>(({ ctx, storeId, params, query }) => listShippingMethods(ctx, storeId, params.cartId, query))
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
    handler: storefrontHandler<CartParams, CartItemInput>(({ ctx, storeId, params, payload }) => addCartItem(ctx, storeId, params.cartId, payload))
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
    handler: storefrontHandler<CartItemParams, { quantity: number }>(({ ctx, storeId, params, payload }) =>
      updateCartItem(ctx, storeId, params.cartId, params.itemId, payload.quantity)
    )
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
    handler: storefrontHandler<CartItemParams>(({ ctx, storeId, params }) => removeCartItem(ctx, storeId, params.cartId, params.itemId))
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
    handler: storefrontHandler<CartParams, { code: string }>(({ ctx, storeId, params, payload }) => applyCartDiscount(ctx, storeId, params.cartId, payload.code))
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
    handler: storefrontHandler<CartParams>(({ ctx, storeId, params }) => removeCartDiscount(ctx, storeId, params.cartId))
  }
});

export const selectShippingMethodRoute = storefrontRoute({
  method: 'POST',
  path: '/storefront/carts/{cartId}/shipping-method',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Choose a shipping method (optionally with the destination: country, region, postalCode); 422 when it does not apply to the destination or contents, with the reason',
    tags: TAGS,
    validate: { params: cartParams, payload: shippingMethodPayload },
    response: { status: { 200: cartResponse } },
    handler: storefrontHandler<CartParams, { shippingMethodId: string } & Partial<DestinationInput>>(({ ctx, storeId, params, payload }) =>
      selectShippingMethod(ctx, storeId, params.cartId, payload)
    )
  }
});

export const setShippingDestinationRoute = storefrontRoute({
  method: 'PUT',
  path: '/storefront/carts/{cartId}/shipping-address',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      "Set where the cart ships (country, region, postalCode) before checkout; a chosen method that no longer applies is dropped, and shippingMethodDropped says why",
    tags: TAGS,
    validate: { params: cartParams, payload: shippingDestinationPayload },
    response: { status: { 200: cartResponse } },
    handler: storefrontHandler<CartParams, DestinationInput>(({ ctx, storeId, params, payload }) => setShippingDestination(ctx, storeId, params.cartId, payload))
  }
});
