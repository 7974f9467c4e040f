import Joi from 'joi';
import { createList, deleteList, getList, listLists, replaceList, type ListInput } from '../../services/marketing/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { listListResponse, listPayload, listResponse } from './schemas.js';

const tags = ['marketing'];

export const listListsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/lists',
  options: {
    description: 'List marketing lists with their customerIds and memberCount (newest first)',
    tags,
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(100).allow('') }) },
    response: { status: { 200: listListResponse } },
    handler: async (request) => {
      const { limit, cursor, q } = request.query as { limit: number; cursor?: string; q?: string };
      const result = await listLists(request.server.app.ctx, tenantOf(request).storeId, { q }, { limit, cursor });
      return withMeta({ lists: result.lists }, paginationMeta(limit, result.nextCursor));
    }
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
    handler: async (request, h) => {
      const list = await createList(request.server.app.ctx, tenantOf(request).storeId, request.payload as ListInput);
      return h.response({ list }).code(201);
    }
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
    handler: async (request) => ({ list: await getList(request.server.app.ctx, tenantOf(request).storeId, request.params.listId as string) })
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
    handler: async (request) => ({
      list: await replaceList(request.server.app.ctx, tenantOf(request).storeId, request.params.listId as string, request.payload as ListInput)
    })
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
    handler: async (request, h) => {
      await deleteList(request.server.app.ctx, tenantOf(request).storeId, request.params.listId as string);
      return h.response().code(204);
    }
  }
});
