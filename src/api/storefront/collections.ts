import Joi from 'joi';
import { listStorefrontCollections } from '../../services/catalog/collections.js';
import { getStorefrontCollection } from '../../services/catalog/storefront.js';
import { paginationMeta } from '../../services/pagination.js';
import { storefrontOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { cacheableStorefrontGet } from './http-cache.js';
import { storefrontRoute } from '../route-helpers.js';
import { paginationQuery } from '../schemas.js';

export const listStorefrontCollectionsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/collections',
  options: {
    description: 'Published collections (newest first)',
    tags: ['catalog'],
    validate: { query: Joi.object(paginationQuery) },
    handler: cacheableStorefrontGet(async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await listStorefrontCollections(request.server.app.ctx, storefrontOf(request).storeId, { limit, cursor });
      return withMeta({ collections: result.collections }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const getStorefrontCollectionRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/collections/{slug}',
  options: {
    description: 'A published collection with a page of its active products (collection order); meta.pagination pages the products',
    tags: ['catalog'],
    validate: { params: Joi.object({ slug: Joi.string().trim().min(1).max(120).required() }), query: Joi.object(paginationQuery) },
    handler: cacheableStorefrontGet(async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await getStorefrontCollection(request.server.app.ctx, storefrontOf(request).storeId, request.params.slug as string, { limit, cursor });
      return withMeta({ collection: result.collection }, paginationMeta(limit, result.nextCursor));
    })
  }
});
