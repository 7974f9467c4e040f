import Joi from 'joi';
import { responseObject } from '../schemas.js';

/** The delivery was accepted; `applied` says whether it made a domain active. */
export const hostedDomainReceiptResponse = responseObject({
  received: Joi.boolean().valid(true).required(),
  applied: Joi.boolean().required()
});
