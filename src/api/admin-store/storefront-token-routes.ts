import Joi from 'joi';
import { ADMINS } from '../../platform/roles.js';
import { createStorefrontToken, listStorefrontTokens, revokeStorefrontToken, rotateStorefrontToken } from '../../services/stores/index.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery, text } from '../schemas.js';
import { paginationMeta } from '../../platform/pagination.js';
import { withMeta } from '../plugins/envelope.js';
import { storefrontTokenListResponse, storefrontTokenResponse, storefrontTokenSecretResponse } from './schemas.js';

export const listTokens = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/storefront-tokens',
  options: {
    description: 'List storefront tokens, oldest first, paginated (never the secret)',
    tags: ['storefront-tokens'],
    validate: { query: Joi.object(paginationQuery) },
    response: { status: { 200: storefrontTokenListResponse } },
    handler: async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await listStorefrontTokens(request.server.app.ctx, tenantOf(request).storeId, { limit, cursor });
      return withMeta({ tokens: result.tokens }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const createToken = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/storefront-tokens',
  options: {
    description: 'Create a storefront token; the secret is shown only in this response',
    tags: ['storefront-tokens'],
    validate: { payload: Joi.object({ name: text(100).min(1).required() }) },
    response: { status: { 201: storefrontTokenSecretResponse } },
    handler: async (request, h) => {
      const { name } = request.payload as { name: string };
      return h.response(await createStorefrontToken(request.server.app.ctx, tenantOf(request).storeId, name)).code(201);
    }
  }
});

export const rotateToken = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/storefront-tokens/{tokenId}/rotate',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Issue a new secret for a token; the old one stops working at once',
    tags: ['storefront-tokens'],
    validate: { params: idParams('tokenId') },
    response: { status: { 200: storefrontTokenSecretResponse } },
    handler: async (request) => rotateStorefrontToken(request.server.app.ctx, tenantOf(request).storeId, request.params.tokenId as string)
  }
});

export const revokeToken = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/storefront-tokens/{tokenId}/revoke',
  options: {
    description: 'Revoke a storefront token',
    tags: ['storefront-tokens'],
    validate: { params: idParams('tokenId') },
    response: { status: { 200: storefrontTokenResponse } },
    handler: async (request) => revokeStorefrontToken(request.server.app.ctx, tenantOf(request).storeId, request.params.tokenId as string)
  }
});
