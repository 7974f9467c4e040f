import Joi from 'joi';
import { idValue, paginationQuery, responseObject, timestamp } from '../schemas.js';

const filters = {
  actor: idValue().description('a user id (their own requests and their API keys\' are both under it) or an API key id'),
  action: Joi.string().trim().max(100).description('e.g. product.updated'),
  resourceType: Joi.string().trim().max(200),
  resourceId: Joi.string().trim().max(200),
  since: Joi.date().iso(),
  until: Joi.date().iso()
};

export const auditListQuery = Joi.object({ ...paginationQuery, ...filters });
export const auditExportPayload = Joi.object(filters).allow(null);

export const auditEntry = responseObject({
  id: idValue().required(),
  seq: Joi.number().integer().min(1).required(),
  createdAt: timestamp().required(),
  actor: responseObject({
    type: Joi.string().valid('user', 'api_key', 'system').required(),
    userId: idValue().allow(null).required(),
    apiKeyId: idValue().allow(null).required(),
    email: Joi.string().allow(null).required()
  }).required(),
  action: Joi.string().required(),
  resource: responseObject({ type: Joi.string().required(), id: Joi.string().allow(null).required() }).required(),
  changes: Joi.object().unknown(true).allow(null).required(),
  requestId: Joi.string().allow(null).required(),
  ip: Joi.string().allow(null).required(),
  userAgent: Joi.string().allow(null).required(),
  hash: Joi.string().hex().length(64).required()
}).label('AuditEntry');

export const auditListResponse = responseObject({ entries: Joi.array().items(auditEntry).required() });

export const auditVerifyResponse = responseObject({
  valid: Joi.boolean().required(),
  checked: Joi.number().integer().min(0).required(),
  anchor: Joi.string().hex().length(64).allow(null).required(),
  firstBroken: responseObject({ seq: Joi.number().integer().required(), id: idValue().required(), problem: Joi.string().required() }).allow(null).required()
}).label('AuditVerification');
