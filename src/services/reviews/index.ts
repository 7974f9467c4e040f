/**
 * The face of module reviews: product reviews and ratings.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { reviewsModule } from './module.js';
export { REVIEW_STATES, listProductReviews, listReviews, moderateReview, upsertReview, type ReviewInput, type ReviewState } from './reviews.js';
