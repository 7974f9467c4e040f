import type { ServerRoute } from '@hapi/hapi';
import { getStorefrontCollectionRoute, listStorefrontCollectionsRoute } from './collection-routes.js';
import { getStorefrontStoreRoute } from './store-routes.js';
import { getStorefrontProductRoute, listStorefrontProductsRoute } from './product-routes.js';
import { newsletterSubscribeRoute } from './newsletter-routes.js';

export const storefrontRoutes: ServerRoute[] = [
  getStorefrontStoreRoute,
  listStorefrontProductsRoute,
  getStorefrontProductRoute,
  listStorefrontCollectionsRoute,
  getStorefrontCollectionRoute,
  newsletterSubscribeRoute
];
