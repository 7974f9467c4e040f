import Joi from 'joi';
import { paginationMeta } from '../../services/pagination.js';
import { listProductReviews, upsertReview, type ReviewInput } from '../../services/reviews/reviews.js';
import { storefrontOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { storefrontRoute } from '../route-helpers.js';
import { email, paginationQuery, slug, text } from '../schemas.js';

const params = Joi.object({ slug: slug().required() });

export const listProductReviewsRoute = storefrontRoute({
  method: 'GET',
  path: '/storefront/products/{slug}/reviews',
  options: {
    description: 'Approved reviews of an active product, newest first; meta.rating = { average, count }',
    tags: ['reviews'],
    validate: { params, query: Joi.object(paginationQuery) },
    handler: async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await listProductReviews(request.server.app.ctx, storefrontOf(request).storeId, request.params.slug as string, { limit, cursor });
      return withMeta({ reviews: result.reviews }, { ...paginationMeta(limit, result.nextCursor), rating: result.rating });
    }
  }
});

export const putProductReviewRoute = storefrontRoute({
  method: 'PUT',
  path: '/storefront/products/{slug}/reviews',
  options: {
    description: 'Write or replace the review of this product by this email (201 created, 200 updated; pending moderation); needs a purchase: 422 review_not_verified',
    tags: ['reviews'],
    validate: {
      params,
      payload: Joi.object({
        orderNumber: Joi.alternatives(Joi.number().integer().min(1).max(2_000_000_000), Joi.string().trim().pattern(/^#?\d{1,10}$/)).required(),
        email: email().required(),
        rating: Joi.number().integer().min(1).max(5).required(),
        title: text(200).allow(''),
        body: text(5000).allow(''),
        authorName: text(100).allow('')
      })
    },
    handler: async (request, h) => {
      const body = request.payload as Omit<ReviewInput, 'orderNumber'> & { orderNumber: number | string };
      const orderNumber = typeof body.orderNumber === 'string' ? Number(body.orderNumber.replace('#', '')) : body.orderNumber;
      const result = await upsertReview(request.server.app.ctx, storefrontOf(request).storeId, request.params.slug as string, { ...body, orderNumber });
      return h.response({ review: result.review }).code(result.created ? 201 : 200);
    }
  }
});
