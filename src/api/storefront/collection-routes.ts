import Joi from 'joi';
import { getStorefrontCollection, listStorefrontCollections } from '../../services/catalog/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { successBodyText } from '../plugins/envelope.js';
import { storefrontRoute } from '../route-helpers.js';
import { paginationQuery } from '../schemas.js';
import { cachedEnvelope } from './cached-json.js';
import { cacheableStorefrontGet } from './http-cache.js';
import { storefrontCollectionListResponse, storefrontCollectionResponse } from './schemas.js';

export const listStorefrontCollectionsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/collections',
  options: {
    description: 'Published collections (newest first); q matches the title',
    tags: ['catalog'],
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(200).allow('') }) },
    response: { status: { 200: storefrontCollectionListResponse } },
    handler: cacheableStorefrontGet<{}, { limit: number; cursor?: string; q?: string }>(async (call) => {
      const { ctx, storeId, query } = call;
      const { limit, cursor, q } = query;
      return cachedEnvelope(call, `collections:${JSON.stringify([limit, cursor, q ?? ''])}`, async () => {
        const result = await listStorefrontCollections(ctx, storeId, { limit, cursor }, q || undefined);
        return successBodyText(result.data, paginationMeta(limit, result.nextCursor));
      });
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
    response: { status: { 200: storefrontCollectionResponse } },
    handler: cacheableStorefrontGet<{ slug: string }, { limit: number; cursor?: string }>(async (call) => {
      const { ctx, storeId, params, query } = call;
      const { limit, cursor } = query;
      const slug = params.slug.toLowerCase();
      return cachedEnvelope(call, `collection:${JSON.stringify([slug, limit, cursor])}`, async () => {
        const result = await getStorefrontCollection(ctx, storeId, slug, { limit, cursor });
        return successBodyText(result.data, paginationMeta(limit, result.nextCursor));
      });
    })
  }
});
