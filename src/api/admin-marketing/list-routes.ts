import Joi from 'joi';
import { createList, deleteList, getList, listLists, replaceList, type ListInput } from '../../services/marketing/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { listListResponse, listPayload, listResponse } from './schemas.js';

const tags = ['marketing'];
type ListParams = { listId: string };

export const listListsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/lists',
  options: {
    description: 'List marketing lists with their customerIds and memberCount (newest first)',
    tags,
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(100).allow('') }) },
    response: { status: { 200: listListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; q?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, q } = query;
      const result = await listLists(ctx, storeId, { q }, { limit, cursor });
      return withMeta({ lists: result.lists }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const createListRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/marketing/lists',
  options: {
    description: 'Create a list { name, description?, customerIds? }: 201 { list }; unknown customer ids are a 422',
    tags,
    validate: { payload: listPayload },
    response: { status: { 201: listResponse } },
    handler: adminHandler<{}, ListInput>(async ({ ctx, storeId, payload, h }) => {
      const list = await createList(ctx, storeId, payload);
      return h.response({ list }).code(201);
    })
  }
});

export const getListRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/lists/{listId}',
  options: {
    description: 'Get a list with its members',
    tags,
    validate: { params: idParams('listId') },
    response: { status: { 200: listResponse } },
    handler: adminHandler<ListParams>(async ({ ctx, storeId, params }) => ({ list: await getList(ctx, storeId, params.listId) }))
  }
});

export const replaceListRoute = adminRoute(ADMINS, {
  method: 'PUT',
  path: '/admin/marketing/lists/{listId}',
  options: {
    description: 'Replace a list: name and description; members replaced when customerIds is given',
    tags,
    validate: { params: idParams('listId'), payload: listPayload },
    response: { status: { 200: listResponse } },
    handler: adminHandler<ListParams, ListInput>(async ({ ctx, storeId, params, payload }) => ({ list: await replaceList(ctx, storeId, params.listId, payload) }))
  }
});

export const deleteListRoute = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/marketing/lists/{listId}',
  options: {
    description: 'Delete a list (its customers stay): 204',
    tags,
    validate: { params: idParams('listId') },
    plugins: { openapi: { success: { status: 204, description: 'Deleted', content: null } } },
    handler: adminHandler<ListParams>(async ({ ctx, storeId, params, h }) => {
      await deleteList(ctx, storeId, params.listId);
      return h.response().code(204);
    })
  }
});
