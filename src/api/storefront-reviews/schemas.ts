import Joi from 'joi';
import { REVIEW_STATES } from '../../services/reviews/index.js';
import { email, idValue, responseObject, slug, text, timestamp } from '../schemas.js';

export const reviewParams = Joi.object({ slug: slug().required() });

export const putReviewPayload = Joi.object({
  orderNumber: Joi.alternatives(Joi.number().integer().min(1).max(2_000_000_000), Joi.string().trim().pattern(/^#?\d{1,10}$/)).required(),
  email: email().required(),
  rating: Joi.number().integer().min(1).max(5).required(),
  title: text(200).allow(''),
  body: text(5000).allow(''),
  authorName: text(100).allow('')
});

/** What anyone may see of a review; the admin resource adds the rest. */
export const publicReviewKeys = {
  id: idValue().required(),
  rating: Joi.number().integer().min(1).max(5).required(),
  title: Joi.string().allow('').required(),
  body: Joi.string().allow('').required(),
  authorName: Joi.string().allow('').required(),
  /** Always true: only a customer who bought the product can write a review. */
  verifiedPurchase: Joi.boolean().valid(true).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
};

/** An approved review as shoppers see it: no email, no order. */
export const publicReviewResource = responseObject(publicReviewKeys).label('PublicReview');

export const reviewListResponse = responseObject({ reviews: Joi.array().items(publicReviewResource).required() });
/** The writer's own review, with its moderation state (pending after every write). */
export const writtenReviewResponse = responseObject({
  review: responseObject({ ...publicReviewKeys, state: Joi.string().valid(...REVIEW_STATES).required() })
    .label('WrittenReview')
    .required()
});
