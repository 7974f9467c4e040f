import type { Module } from '../../context.js';
import { pendingReviewsCount } from './reviews.js';

export const reviewsModule: Module = {
  name: 'reviews',
  dashboard: async (ctx, storeId) => ({ stats: { pendingReviews: await pendingReviewsCount(ctx.db, storeId) } })
};
