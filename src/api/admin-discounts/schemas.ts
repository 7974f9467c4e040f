import Joi from 'joi';
import { DISCOUNT_TYPES } from '../../services/discounts.js';
import { money } from '../schemas.js';

/** AdminUpsertDiscountRequest: shared by create (POST) and replace (PUT). */
export const upsertDiscountPayload = Joi.object({
  code: Joi.string().trim().min(1).max(64).pattern(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'letters, digits, - and _').required(),
  type: Joi.string().valid(...DISCOUNT_TYPES).required(),
  value: Joi.when('type', {
    switch: [
      { is: 'percentage', then: Joi.number().greater(0).max(100).precision(2).required() },
      { is: 'fixed_amount', then: money().min(1).required() }
    ],
    otherwise: Joi.number().min(0).max(100).allow(null)
  }),
  isActive: Joi.boolean(),
  usageLimit: Joi.number().integer().min(1).max(2_000_000_000).allow(null),
  startsAt: Joi.date().iso().allow(null),
  endsAt: Joi.date()
    .iso()
    .allow(null)
    .when('startsAt', { is: Joi.date().required(), then: Joi.date().greater(Joi.ref('startsAt')).messages({ 'date.greater': 'endsAt must be after startsAt' }) }),
  minimumOrderAmount: money().allow(null)
});
