import Joi from 'joi';
import { getStorefrontProduct, listStorefrontProducts, STOREFRONT_SORTS, type StorefrontProductFilters } from '../../services/catalog/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { successBodyText } from '../plugins/envelope.js';
import { storefrontRoute } from '../route-helpers.js';
import { money, paginationQuery, text } from '../schemas.js';
import { cachedEnvelope } from './cached-json.js';
import { cacheableStorefrontGet } from './http-cache.js';
import { storefrontProductListResponse, storefrontProductResponse } from './schemas.js';

export const listStorefrontProductsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/products',
  options: {
    description: 'Active products; full-text q (prefix terms), filters collection (slug), tag, minPrice, maxPrice, inStock; sort newest|price_asc|price_desc|title (relevance when q)',
    tags: ['catalog'],
    validate: {
      query: Joi.object({
        ...paginationQuery,
        q: Joi.string().trim().max(200).allow(''),
        collection: text(120).allow(''),
        tag: text(64).allow(''),
        minPrice: money(),
        maxPrice: money(),
        inStock: Joi.boolean(),
        sort: Joi.string().valid(...STOREFRONT_SORTS)
      })
    },
    response: { status: { 200: storefrontProductListResponse } },
    handler: cacheableStorefrontGet<{}, StorefrontProductFilters & { limit: number; cursor?: string }>(async (call) => {
      const { ctx, storeId } = call;
      const { limit, cursor, ...query } = call.query;
      const filters: StorefrontProductFilters = { ...query, q: query.q || undefined, collection: query.collection || undefined, tag: query.tag || undefined };
      return cachedEnvelope(call, `products:${JSON.stringify([filters, limit, cursor])}`, async () => {
        const result = await listStorefrontProducts(ctx, storeId, filters, { limit, cursor });
        return successBodyText(result.data, paginationMeta(limit, result.nextCursor));
      });
    })
  }
});

export const getStorefrontProductRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/products/{slug}',
  options: {
    description: 'An active product by slug (404 for drafts and archived products)',
    tags: ['catalog'],
    validate: { params: Joi.object({ slug: Joi.string().trim().min(1).max(120).required() }) },
    response: { status: { 200: storefrontProductResponse } },
    handler: cacheableStorefrontGet<{ slug: string }>(async (call) => {
      const { ctx, storeId, params } = call;
      const slug = params.slug.toLowerCase();
      return cachedEnvelope(call, `product:${slug}`, async () => {
        const product = await getStorefrontProduct(ctx, storeId, slug);
        return successBodyText(product.data);
      });
    })
  }
});
