import Joi from 'joi';
import { createDiscount, deleteDiscount, getDiscount, listDiscounts, replaceDiscount, type DiscountInput } from '../../services/discounts/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { discountDeletedResponse, discountListResponse, discountResponse, upsertDiscountPayload } from './schemas.js';

type DiscountParams = { discountId: string };

export const listDiscountsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/discounts',
  options: {
    description: 'List discounts (newest first); q matches anywhere in the code, case-insensitively (% and _ match themselves)',
    tags: ['discounts'],
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(100).allow(''), isActive: Joi.boolean() }) },
    response: { status: { 200: discountListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; q?: string; isActive?: boolean }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, q, isActive } = query;
      const result = await listDiscounts(ctx, storeId, { q, isActive }, { limit, cursor });
      return withMeta({ discounts: result.discounts }, paginationMeta(limit, result.nextCursor));
    })
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
    handler: adminHandler<{}, DiscountInput>(async ({ ctx, storeId, payload, h }) => {
      const discount = await createDiscount(ctx, storeId, payload);
      return h.response({ discount }).code(201);
    })
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
    handler: adminHandler<DiscountParams>(async ({ ctx, storeId, params }) => ({ discount: await getDiscount(ctx, storeId, params.discountId) }))
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
    handler: adminHandler<DiscountParams, DiscountInput>(async ({ ctx, storeId, params, payload }) => ({
      discount: await replaceDiscount(ctx, storeId, params.discountId, payload)
    }))
  }
});

export const deleteDiscountRoute = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/discounts/{discountId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Delete a discount no order used; one used on an order (or held by a checkout) answers 409 discount_in_use: deactivate it instead (isActive false). Owner or admin',
    tags: ['discounts'],
    validate: { params: idParams('discountId') },
    response: { status: { 200: discountDeletedResponse } },
    handler: adminHandler<DiscountParams>(({ ctx, storeId, params }) => deleteDiscount(ctx, storeId, params.discountId))
  }
});
