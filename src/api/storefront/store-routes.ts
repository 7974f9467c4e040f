import { getStorefrontStore } from '../../services/stores/index.js';
import { successBody } from '../plugins/envelope.js';
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
    handler: cacheableStorefrontGet<{}>(async ({ ctx, storeId, h }) => {
      const result = await getStorefrontStore(ctx, storeId);
      return envelopeJson(h, result, () => JSON.stringify(successBody(result, {})));
    })
  }
});
