import Joi from 'joi';
import { responseObject } from '../schemas.js';

/** 200 only when both backing services answer; otherwise 503 names what is down. */
export const healthResponse = responseObject({
  status: Joi.string().valid('ok').required(),
  database: Joi.string().valid('connected').required(),
  redis: Joi.string().valid('connected').required()
}).label('Health');
