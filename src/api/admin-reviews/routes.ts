import { paginationMeta } from '../../platform/pagination.js';
import { listReviews, moderateReview, type ReviewState } from '../../services/reviews/index.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { adminReviewListResponse, adminReviewResponse, listReviewsQuery, moderationPayload } from './schemas.js';

export const listReviewsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/reviews',
  options: {
    description: 'Reviews for moderation, newest first; filter by state and productId',
    tags: ['reviews'],
    validate: { query: listReviewsQuery },
    response: { status: { 200: adminReviewListResponse } },
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
    validate: { params: idParams('reviewId'), payload: moderationPayload },
    response: { status: { 200: adminReviewResponse } },
    handler: (request) =>
      moderateReview(request.server.app.ctx, tenantOf(request).storeId, request.params.reviewId as string, request.payload as { state: ReviewState; note?: string })
  }
});
