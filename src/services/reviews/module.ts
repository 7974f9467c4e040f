import type { ModuleContribution } from '../modules/contribution.js';
import { pendingReviewsCount } from './reviews.js';

export const reviewsModule: ModuleContribution = {
  name: 'reviews',
  dashboard: async (ctx, storeId) => ({ stats: { pendingReviews: await pendingReviewsCount(ctx.db, storeId) } })
};
