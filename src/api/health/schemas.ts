import Joi from 'joi';
import { responseObject } from '../schemas.js';

/** 200 only when both backing services answer; otherwise 503 names what is down. */
export const healthResponse = responseObject({
  status: Joi.string().valid('ok').required(),
  database: Joi.string().valid('connected').required(),
  queue: Joi.string().valid('connected').required(),
  redis: Joi.string().valid('connected').description('Present when Redis backs the queues (REDIS_URL set)'),
  backends: Joi.object({
    database: Joi.string().valid('postgres', 'embedded').required(),
    queue: Joi.string().valid('redis', 'postgres').required(),
    rateLimits: Joi.string().valid('redis', 'postgres').required(),
    cacheInvalidation: Joi.string().valid('redis', 'postgres').required(),
    sendRate: Joi.string().valid('redis', 'postgres').required(),
    catalogVersion: Joi.string().valid('redis', 'postgres').required()
  }).required()
}).label('Health');
