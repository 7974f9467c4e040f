import Joi from 'joi';
import { API_KEY_REVOKED_REASONS } from '../../services/api-keys/api-keys.js';
import { API_KEY_SCOPES } from '../../services/api-keys/scopes.js';
import { emailValue, idValue, responseObject, text, timestamp } from '../schemas.js';

const scope = Joi.string().valid(...API_KEY_SCOPES);

export const createApiKeyPayload = Joi.object({
  name: text(100).min(1).required(),
  scopes: Joi.array().items(scope).min(1).max(API_KEY_SCOPES.length).unique().required()
});

const apiKeyResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  prefix: Joi.string().required().description('the first characters of the secret, to tell keys apart'),
  scopes: Joi.array().items(scope).required().description('the scopes the key was granted'),
  effectiveScopes: Joi.array()
    .items(scope)
    .required()
    .description("what the key may do now: its scopes that its creator's current role also grants (none once revoked); every request is also held to the route's roles for that role"),
  createdBy: responseObject({
    userId: idValue().required(),
    email: emailValue().allow(null).required()
  })
    .label('ApiKeyCreator')
    .required()
    .description('the member who created the key; it acts within their rights, and is revoked when they leave the store'),
  lastUsedAt: timestamp().allow(null).required().description('updated at most once a minute'),
  createdAt: timestamp().required(),
  revokedAt: timestamp().allow(null).required(),
  revokedReason: Joi.string()
    .valid(...API_KEY_REVOKED_REASONS)
    .allow(null)
    .required()
    .description('why it was revoked: `revoked` by a person, `member_removed` when its creator left the store; null while it works')
}).label('ApiKey');

export const apiKeyListResponse = responseObject({ apiKeys: Joi.array().items(apiKeyResource).required() });
export const apiKeyResponse = responseObject({ apiKey: apiKeyResource.required() });
/** Create: the only answer that carries the secret. */
export const apiKeySecretResponse = responseObject({
  apiKey: apiKeyResource.required(),
  secret: Joi.string().pattern(/^swk_[A-Za-z0-9_-]{32,}$/, 'API key').required()
});
