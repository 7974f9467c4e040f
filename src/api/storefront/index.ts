import type { ServerRoute } from '@hapi/hapi';
import { getStorefrontCollectionRoute, listStorefrontCollectionsRoute } from './collections.js';
import { getStorefrontStoreRoute } from './get-store.js';
import { getStorefrontProductRoute, listStorefrontProductsRoute } from './products.js';
import { newsletterSubscribeRoute } from './newsletter.js';

export const storefrontRoutes: ServerRoute[] = [
  getStorefrontStoreRoute,
  listStorefrontProductsRoute,
  getStorefrontProductRoute,
  listStorefrontCollectionsRoute,
  getStorefrontCollectionRoute,
  newsletterSubscribeRoute
];
