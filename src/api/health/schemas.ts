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
  }).required(),
  replica: Joi.object({
    state: Joi.string().valid('starting', 'ok', 'lagging', 'down').required(),
    readsFrom: Joi.string().valid('replica', 'primary').required(),
    lagMs: Joi.number().integer().min(0).allow(null).required()
  }).description('Present when REPLICA_DATABASE_URL is set: the last probe; storefront catalog reads skip a replica that is not ok')
}).label('Health');
