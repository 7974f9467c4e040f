import type { ServerRoute } from '@hapi/hapi';
import { confirmCheckoutSessionRoute, createCheckoutSessionRoute } from './checkout-routes.js';
import {
  addCartItemRoute,
  applyDiscountRoute,
  createCartRoute,
  getCartRoute,
  listShippingMethodsRoute,
  removeCartItemRoute,
  removeDiscountRoute,
  selectShippingMethodRoute,
  setShippingDestinationRoute,
  updateCartItemRoute
} from './routes.js';

export const storefrontCartRoutes: ServerRoute[] = [
  createCartRoute,
  getCartRoute,
  listShippingMethodsRoute,
  addCartItemRoute,
  updateCartItemRoute,
  removeCartItemRoute,
  applyDiscountRoute,
  removeDiscountRoute,
  selectShippingMethodRoute,
  setShippingDestinationRoute,
  createCheckoutSessionRoute,
  confirmCheckoutSessionRoute
];
