/**
 * The face of module api-keys: admin API keys and their scopes.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { API_KEY_PREFIX, API_KEY_REVOKED_REASONS, authenticateApiKey, consumeApiKeyRate, createApiKey, forgetApiKeys, keysOfMember, listApiKeys, liveApiKeys, revokeApiKey, revokeKeysOfMember, type ApiKeyPrincipal } from './api-keys.js';
export { apiKeysModule } from './module.js';
export { API_KEY_SCOPES, effectiveScopes, type ApiKeyScope } from './scopes.js';
