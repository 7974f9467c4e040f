import Joi from 'joi';
import { paginationMeta } from '../../platform/pagination.js';
import { listProductReviews, upsertReview, type ReviewInput } from '../../services/reviews/index.js';
import { storefrontHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { storefrontRoute } from '../route-helpers.js';
import { paginationQuery } from '../schemas.js';
import { putReviewPayload, reviewListResponse, reviewParams, writtenReviewResponse } from './schemas.js';

type ReviewParams = { slug: string };
/** The order number may come as `#1001` or 1001. */
type PutReviewBody = Omit<ReviewInput, 'orderNumber'> & { orderNumber: number | string };

export const listProductReviewsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/products/{slug}/reviews',
  options: {
    description: 'Approved reviews of an active product, newest first; meta.rating = { average, count }',
    tags: ['reviews'],
    validate: { params: reviewParams, query: Joi.object(paginationQuery) },
    response: { status: { 200: reviewListResponse } },
    handler: storefrontHandler<ReviewParams, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, params, query }) => {
      const { limit, cursor } = query;
      const result = await listProductReviews(ctx, storeId, params.slug, { limit, cursor });
      return withMeta({ reviews: result.reviews }, { ...paginationMeta(limit, result.nextCursor), rating: result.rating });
    })
  }
});

export const putProductReviewRoute = storefrontRoute({
  method: 'PUT',
  path: '/storefront/products/{slug}/reviews',
  options: {
    description: 'Write or replace the review of this product by this email (201 created, 200 updated; pending moderation); needs a purchase: 422 review_not_verified',
    tags: ['reviews'],
    validate: { params: reviewParams, payload: putReviewPayload },
    response: { status: { 200: writtenReviewResponse, 201: writtenReviewResponse } },
    handler: storefrontHandler<ReviewParams, PutReviewBody>(async ({ ctx, storeId, params, payload: body, h }) => {
      const orderNumber = typeof body.orderNumber === 'string' ? Number(body.orderNumber.replace('#', '')) : body.orderNumber;
      const result = await upsertReview(ctx, storeId, params.slug, { ...body, orderNumber });
      return h.response({ review: result.review }).code(result.created ? 201 : 200);
    })
  }
});
