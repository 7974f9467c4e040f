import Joi from 'joi';
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys/index.js';
import type { ApiKeyScope } from '../../services/api-keys/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { apiKeyListResponse, apiKeyResponse, apiKeySecretResponse, createApiKeyPayload } from './schemas.js';

export const listKeys = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/api-keys',
  options: {
    description: 'List admin API keys, oldest first, paginated (never the secret)',
    tags: ['api-keys'],
    validate: { query: Joi.object(paginationQuery) },
    response: { status: { 200: apiKeyListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor } = query;
      const result = await listApiKeys(ctx, storeId, { limit, cursor });
      return withMeta({ apiKeys: result.apiKeys }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const createKey = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/api-keys',
  options: {
    description: 'Create an admin API key with scopes; the swk_ secret is shown only in this response',
    tags: ['api-keys'],
    validate: { payload: createApiKeyPayload },
    response: { status: { 201: apiKeySecretResponse } },
    handler: adminHandler<{}, { name: string; scopes: ApiKeyScope[] }>(async ({ ctx, storeId, actor, payload, h }) =>
      h.response(await createApiKey(ctx, storeId, actor.userId, payload)).code(201)
    )
  }
});

export const revokeKey = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/store/api-keys/{keyId}',
  options: {
    description: 'Revoke an admin API key: every process refuses it at once (the record stays, revoked)',
    tags: ['api-keys'],
    validate: { params: idParams('keyId') },
    response: { status: { 200: apiKeyResponse } },
    handler: adminHandler<{ keyId: string }>(({ ctx, storeId, params }) => revokeApiKey(ctx, storeId, params.keyId))
  }
});
