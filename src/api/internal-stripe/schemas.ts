import Joi from 'joi';
import { responseObject } from '../schemas.js';

/** The event was stored (or, `duplicate`, had been already); a worker processes it. */
export const stripeReceiptResponse = responseObject({
  received: Joi.boolean().valid(true).required(),
  duplicate: Joi.boolean().required()
});
