import Joi from 'joi';
import { DISCOUNT_TYPES } from '../../services/discounts/index.js';
import { idValue, money, responseObject, timestamp } from '../schemas.js';

/** AdminUpsertDiscountRequest: shared by create (POST) and replace (PUT). */
export const upsertDiscountPayload = Joi.object({
  code: Joi.string().trim().min(1).max(64).pattern(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'letters, digits, - and _').required(),
  type: Joi.string().valid(...DISCOUNT_TYPES).required(),
  value: Joi.when('type', {
    switch: [
      { is: 'percentage', then: Joi.number().greater(0).max(100).precision(2).required() },
      { is: 'fixed_amount', then: money().min(1).required() }
    ],
    // The contract: value is ignored for free_shipping.
    otherwise: Joi.any().strip()
  }).description('percentage: 0 < value <= 100 (2 decimals at most); fixed_amount: minor units, at least 1; both required; ignored for free_shipping'),
  isActive: Joi.boolean(),
  usageLimit: Joi.number().integer().min(1).max(2_000_000_000).allow(null),
  startsAt: Joi.date().iso().allow(null),
  endsAt: Joi.date()
    .iso()
    .allow(null)
    .when('startsAt', { is: Joi.date().required(), then: Joi.date().greater(Joi.ref('startsAt')).messages({ 'date.greater': 'endsAt must be after startsAt' }) }),
  minimumOrderAmount: money().allow(null)
});

export const discountResource = responseObject({
  id: idValue().required(),
  code: Joi.string().required(),
  type: Joi.string().valid(...DISCOUNT_TYPES).required(),
  value: Joi.number().allow(null).required(),
  isActive: Joi.boolean().required(),
  usageLimit: Joi.number().integer().allow(null).required(),
  usageCount: Joi.number().integer().required(),
  startsAt: timestamp().allow(null).required(),
  endsAt: timestamp().allow(null).required(),
  minimumOrderAmount: Joi.number().integer().allow(null).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('Discount');

export const discountResponse = responseObject({ discount: discountResource.required() });
export const discountListResponse = responseObject({ discounts: Joi.array().items(discountResource).required() });

export const discountDeletedResponse = responseObject({ deleted: Joi.boolean().valid(true).required(), id: idValue().required() }).label('DiscountDeleted');
