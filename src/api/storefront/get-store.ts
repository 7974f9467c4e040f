import { getStorefrontStore } from '../../services/stores.js';
import { storefrontOf } from '../plugins/auth.js';
import { storefrontRoute } from '../route-helpers.js';

export const getStorefrontStoreRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/store',
  options: {
    description: 'Store metadata for the storefront',
    tags: ['storefront'],
    handler: async (request) => getStorefrontStore(request.server.app.ctx, storefrontOf(request).storeId)
  }
});
