import Joi from 'joi';
import { paginationMeta } from '../../services/pagination.js';
import { listReviews, moderateReview, REVIEW_STATES, type ReviewState } from '../../services/reviews/reviews.js';
import { ANY_MEMBER } from '../../services/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { id, idParams, paginationQuery, text } from '../schemas.js';

export const listReviewsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/reviews',
  options: {
    description: 'Reviews for moderation, newest first; filter by state and productId',
    tags: ['reviews'],
    validate: { query: Joi.object({ ...paginationQuery, state: Joi.string().valid(...REVIEW_STATES), productId: id() }) },
    handler: async (request) => {
      const { limit, cursor, state, productId } = request.query as { limit: number; cursor?: string; state?: ReviewState; productId?: string };
      const result = await listReviews(request.server.app.ctx, tenantOf(request).storeId, { state, productId }, { limit, cursor });
      return withMeta({ reviews: result.reviews }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const moderateReviewRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/reviews/{reviewId}/moderation',
  options: {
    description: 'Approve, reject or return a review to pending, with an optional note; the product rating follows',
    tags: ['reviews'],
    validate: {
      params: idParams('reviewId'),
      payload: Joi.object({ state: Joi.string().valid(...REVIEW_STATES).required(), note: text(2000).allow('', null) })
    },
    handler: (request) =>
      moderateReview(request.server.app.ctx, tenantOf(request).storeId, request.params.reviewId as string, request.payload as { state: ReviewState; note?: string })
  }
});
