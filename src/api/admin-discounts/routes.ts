import Joi from 'joi';
import { createDiscount, getDiscount, listDiscounts, replaceDiscount, type DiscountInput } from '../../services/discounts/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { discountListResponse, discountResponse, upsertDiscountPayload } from './schemas.js';

export const listDiscountsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/discounts',
  options: {
    description: 'List discounts (newest first)',
    tags: ['discounts'],
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(100).allow(''), isActive: Joi.boolean() }) },
    response: { status: { 200: discountListResponse } },
    handler: async (request) => {
      const { limit, cursor, q, isActive } = request.query as { limit: number; cursor?: string; q?: string; isActive?: boolean };
      const result = await listDiscounts(request.server.app.ctx, tenantOf(request).storeId, { q, isActive }, { limit, cursor });
      return withMeta({ discounts: result.discounts }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const createDiscountRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/discounts',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Create a discount code',
    tags: ['discounts'],
    validate: { payload: upsertDiscountPayload },
    response: { status: { 201: discountResponse } },
    handler: async (request, h) => {
      const discount = await createDiscount(request.server.app.ctx, tenantOf(request).storeId, request.payload as DiscountInput);
      return h.response({ discount }).code(201);
    }
  }
});

export const getDiscountRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/discounts/{discountId}',
  options: {
    description: 'Get a discount with its usageCount',
    tags: ['discounts'],
    validate: { params: idParams('discountId') },
    response: { status: { 200: discountResponse } },
    handler: async (request) => ({
      discount: await getDiscount(request.server.app.ctx, tenantOf(request).storeId, request.params.discountId as string)
    })
  }
});

export const replaceDiscountRoute = adminRoute(ADMINS, {
  method: 'PUT',
  path: '/admin/discounts/{discountId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Replace a discount (absent optional fields become null)',
    tags: ['discounts'],
    validate: { params: idParams('discountId'), payload: upsertDiscountPayload },
    response: { status: { 200: discountResponse } },
    handler: async (request) => ({
      discount: await replaceDiscount(
        request.server.app.ctx,
        tenantOf(request).storeId,
        request.params.discountId as string,
        request.payload as DiscountInput
      )
    })
  }
});
