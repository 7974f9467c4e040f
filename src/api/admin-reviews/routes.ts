import { paginationMeta } from '../../platform/pagination.js';
import { listReviews, moderateReview, type ReviewState } from '../../services/reviews/index.js';
import { ANY_MEMBER, type Tenant } from '../../platform/roles.js';
import { holdsScope } from '../api-key-scopes.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { adminReviewListResponse, adminReviewResponse, listReviewsQuery, moderationPayload } from './schemas.js';

/** A review as this caller may see it: the reviewer's email is customer data (read_customers for an API key). */
function reviewForCaller<Review extends { email: string }>(tenant: Tenant, review: Review): Review | Omit<Review, 'email'> {
  if (holdsScope(tenant, 'read_customers')) return review;
  const { email: _email, ...rest } = review;
  return rest;
}

const READER_NOTE = "An API key needs read_customers besides read_products to see the reviewer's email";

export const listReviewsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/reviews',
  options: {
    description: `Reviews for moderation, newest first; filter by state and productId. ${READER_NOTE}`,
    tags: ['reviews'],
    validate: { query: listReviewsQuery },
    response: { status: { 200: adminReviewListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; state?: ReviewState; productId?: string }>(async ({ ctx, storeId, actor, query }) => {
      const { limit, cursor, state, productId } = query;
      const result = await listReviews(ctx, storeId, { state, productId }, { limit, cursor });
      return withMeta({ reviews: result.reviews.map((review) => reviewForCaller(actor, review)) }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const moderateReviewRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/reviews/{reviewId}/moderation',
  options: {
    description: `Approve, reject or return a review to pending, with an optional note; the product rating follows. ${READER_NOTE}`,
    tags: ['reviews'],
    validate: { params: idParams('reviewId'), payload: moderationPayload },
    response: { status: { 200: adminReviewResponse } },
    handler: adminHandler<{ reviewId: string }, { state: ReviewState; note?: string }>(async ({ ctx, storeId, actor, params, payload }) => {
      const moderated = await moderateReview(ctx, storeId, params.reviewId, payload);
      return { ...moderated, review: reviewForCaller(actor, moderated.review) };
    })
  }
});
