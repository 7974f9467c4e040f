import Joi from 'joi';
import { getStorefrontProduct, listStorefrontProducts, STOREFRONT_SORTS, type StorefrontProductFilters } from '../../services/catalog/index.js';
import { withTaxView } from '../../services/taxes/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { successBodyText } from '../plugins/envelope.js';
import { storefrontRoute } from '../route-helpers.js';
import { money, paginationQuery, text } from '../schemas.js';
import { cachedEnvelope } from './cached-json.js';
import { cacheableStorefrontGet } from './http-cache.js';
import { storefrontProductListResponse, storefrontProductResponse } from './schemas.js';

/**
 * `?country=` (and `?region=`): each product says how its prices are taxed there and each variant its
 * price with and without tax (docs/taxes.md). The view is cached beside the plain document under a
 * key of its own (the byte cache and the ETag both turn over with the catalog version, which tax
 * region and store setting changes bump).
 */
const taxViewQuery = {
  country: Joi.string().trim().uppercase().pattern(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2').description("the shopper's country: answer each variant's price with and without tax there"),
  region: Joi.string().trim().uppercase().pattern(/^([A-Z]{2}-)?[A-Z0-9]{1,3}$/, 'ISO 3166-2 subdivision').description("'CA' or 'US-CA', with country")
};
type TaxViewQuery = { country?: string; region?: string };
const taxKey = (country?: string, region?: string) => (country ? `:tax:${country}:${region ?? ''}` : '');

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
        sort: Joi.string().valid(...STOREFRONT_SORTS),
        ...taxViewQuery
      })
    },
    response: { status: { 200: storefrontProductListResponse } },
    handler: cacheableStorefrontGet<{}, StorefrontProductFilters & TaxViewQuery & { limit: number; cursor?: string }>(async (call) => {
      const { ctx, storeId } = call;
      const { limit, cursor, country, region, ...query } = call.query;
      const filters: StorefrontProductFilters = { ...query, q: query.q || undefined, collection: query.collection || undefined, tag: query.tag || undefined };
      return cachedEnvelope(call, `products:${JSON.stringify([filters, limit, cursor])}${taxKey(country, region)}`, async () => {
        const result = await listStorefrontProducts(ctx, storeId, filters, { limit, cursor });
        const data = country ? JSON.stringify({ products: await withTaxView(ctx, storeId, JSON.parse(result.data).products, { country, region }) }) : result.data;
        return successBodyText(data, paginationMeta(limit, result.nextCursor));
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
    validate: { params: Joi.object({ slug: Joi.string().trim().min(1).max(120).required() }), query: Joi.object(taxViewQuery) },
    response: { status: { 200: storefrontProductResponse } },
    handler: cacheableStorefrontGet<{ slug: string }, TaxViewQuery>(async (call) => {
      const { ctx, storeId, params } = call;
      const slug = params.slug.toLowerCase();
      const { country, region } = call.query;
      return cachedEnvelope(call, `product:${slug}${taxKey(country, region)}`, async () => {
        const product = await getStorefrontProduct(ctx, storeId, slug);
        if (!country) return successBodyText(product.data);
        const [taxed] = await withTaxView(ctx, storeId, [JSON.parse(product.data).product], { country, region });
        return successBodyText(JSON.stringify({ product: taxed }));
      });
    })
  }
});
