import { getStorefrontStore } from '../../services/stores/index.js';
import { successBody } from '../plugins/envelope.js';
import { storefrontOf } from '../plugins/auth.js';
import { cacheableStorefrontGet } from './http-cache.js';
import { storefrontRoute } from '../route-helpers.js';
import { envelopeJson } from '../json-body.js';
import { storefrontStoreResponse } from './schemas.js';

export const getStorefrontStoreRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/store',
  options: {
    description: 'Store metadata for the storefront',
    tags: ['store'],
    response: { status: { 200: storefrontStoreResponse } },
    handler: cacheableStorefrontGet(async (request, h) => {
      const result = await getStorefrontStore(request.server.app.ctx, storefrontOf(request).storeId);
      return envelopeJson(h, result, () => JSON.stringify(successBody(result, {})));
    })
  }
});
