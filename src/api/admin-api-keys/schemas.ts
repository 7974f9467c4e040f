import Joi from 'joi';
import { API_KEY_SCOPES } from '../../services/api-keys/index.js';
import { idValue, responseObject, text, timestamp } from '../schemas.js';

const scope = Joi.string().valid(...API_KEY_SCOPES);

export const createApiKeyPayload = Joi.object({
  name: text(100).min(1).required(),
  scopes: Joi.array().items(scope).min(1).max(API_KEY_SCOPES.length).unique().required()
});

const apiKeyResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  prefix: Joi.string().required().description('the first characters of the secret, to tell keys apart'),
  scopes: Joi.array().items(scope).required(),
  lastUsedAt: timestamp().allow(null).required().description('updated at most once a minute'),
  createdAt: timestamp().required(),
  revokedAt: timestamp().allow(null).required()
}).label('ApiKey');

export const apiKeyListResponse = responseObject({ apiKeys: Joi.array().items(apiKeyResource).required() });
export const apiKeyResponse = responseObject({ apiKey: apiKeyResource.required() });
/** Create: the only answer that carries the secret. */
export const apiKeySecretResponse = responseObject({
  apiKey: apiKeyResource.required(),
  secret: Joi.string().pattern(/^swk_[A-Za-z0-9_-]{32,}$/, 'API key').required()
});
