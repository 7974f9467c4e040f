import Joi from 'joi';
import { ADMINS } from '../../platform/roles.js';
import { createStorefrontToken, listStorefrontTokens, revokeStorefrontToken, rotateStorefrontToken } from '../../services/stores/index.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery, text } from '../schemas.js';
import { paginationMeta } from '../../platform/pagination.js';
import { withMeta } from '../plugins/envelope.js';
import { storefrontTokenListResponse, storefrontTokenResponse, storefrontTokenSecretResponse } from './schemas.js';

type TokenParams = { tokenId: string };

export const listTokens = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/storefront-tokens',
  options: {
    description: 'List storefront tokens, oldest first, paginated (never the secret)',
    tags: ['storefront-tokens'],
    validate: { query: Joi.object(paginationQuery) },
    response: { status: { 200: storefrontTokenListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor } = query;
      const result = await listStorefrontTokens(ctx, storeId, { limit, cursor });
      return withMeta({ tokens: result.tokens }, paginationMeta(limit, result.nextCursor));
    })
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
    handler: adminHandler<{}, { name: string }>(async ({ ctx, storeId, payload, h }) => h.response(await createStorefrontToken(ctx, storeId, payload.name)).code(201))
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
    handler: adminHandler<TokenParams>(({ ctx, storeId, params }) => rotateStorefrontToken(ctx, storeId, params.tokenId))
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
    handler: adminHandler<TokenParams>(({ ctx, storeId, params }) => revokeStorefrontToken(ctx, storeId, params.tokenId))
  }
});
