import Joi from 'joi';
import { REVIEW_STATES } from '../../services/reviews/index.js';
import { publicReviewKeys } from '../storefront-reviews/schemas.js';
import { emailValue, id, idValue, paginationQuery, responseObject, text, timestamp } from '../schemas.js';

export const listReviewsQuery = Joi.object({ ...paginationQuery, state: Joi.string().valid(...REVIEW_STATES), productId: id() });
export const moderationPayload = Joi.object({ state: Joi.string().valid(...REVIEW_STATES).required(), note: text(2000).allow('', null) });

/** A review as moderators see it: the public fields plus who wrote it, for which order, and its moderation. */
export const adminReviewResource = responseObject({
  ...publicReviewKeys,
  productId: idValue().required(),
  orderId: idValue().allow(null).required(),
  email: emailValue().description("The reviewer's email: customer data, absent for an API key without read_customers"),
  state: Joi.string().valid(...REVIEW_STATES).required(),
  moderationNote: Joi.string().allow(null).required(),
  moderatedAt: timestamp().allow(null).required()
}).label('Review');

export const adminReviewListResponse = responseObject({ reviews: Joi.array().items(adminReviewResource).required() });
export const adminReviewResponse = responseObject({ review: adminReviewResource.required() });
