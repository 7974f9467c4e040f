import Joi from 'joi';
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys/index.js';
import type { ApiKeyScope } from '../../services/api-keys/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { tenantOf } from '../plugins/auth.js';
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
    handler: async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await listApiKeys(request.server.app.ctx, tenantOf(request).storeId, { limit, cursor });
      return withMeta({ apiKeys: result.apiKeys }, paginationMeta(limit, result.nextCursor));
    }
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
    handler: async (request, h) => {
      const tenant = tenantOf(request);
      const input = request.payload as { name: string; scopes: ApiKeyScope[] };
      return h.response(await createApiKey(request.server.app.ctx, tenant.storeId, tenant.userId, input)).code(201);
    }
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
    handler: async (request) => revokeApiKey(request.server.app.ctx, tenantOf(request).storeId, request.params.keyId as string)
  }
});
