import Joi from 'joi';
import { createCollection, getCollectionPage, listCollections, updateCollection, type CollectionInput } from '../../services/catalog/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { collectionListResponse, collectionResponse, createCollectionPayload, updateCollectionPayload } from './schemas.js';

export const listCollectionsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/collections',
  options: {
    description: 'List collections (newest first)',
    tags: ['catalog'],
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(200).allow(''), isPublished: Joi.boolean() }) },
    response: { status: { 200: collectionListResponse } },
    handler: async (request) => {
      const { limit, cursor, q, isPublished } = request.query as { limit: number; cursor?: string; q?: string; isPublished?: boolean };
      const result = await listCollections(request.server.app.ctx, tenantOf(request).storeId, { q, isPublished }, { limit, cursor });
      return withMeta({ collections: result.collections }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const createCollectionRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/collections',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Create a collection; productIds in display order',
    tags: ['catalog'],
    validate: { payload: createCollectionPayload },
    response: { status: { 201: collectionResponse } },
    handler: async (request, h) => {
      const collection = await createCollection(request.server.app.ctx, tenantOf(request).storeId, request.payload as CollectionInput & { title: string });
      return h.response({ collection }).code(201);
    }
  }
});

export const getCollectionRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/collections/{collectionId}',
  options: {
    description: 'Get a collection with a page of its products in order (limit default 100, max 250); meta.pagination pages the products',
    tags: ['catalog'],
    validate: {
      params: idParams('collectionId'),
      query: Joi.object({ limit: Joi.number().integer().min(1).max(250).default(100), cursor: paginationQuery.cursor })
    },
    response: { status: { 200: collectionResponse } },
    handler: async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await getCollectionPage(request.server.app.ctx, tenantOf(request).storeId, request.params.collectionId as string, { limit, cursor });
      return withMeta({ collection: result.collection }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const updateCollectionRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/collections/{collectionId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Partial update; productIds replaces the membership and its order',
    tags: ['catalog'],
    validate: { params: idParams('collectionId'), payload: updateCollectionPayload },
    response: { status: { 200: collectionResponse } },
    handler: async (request) => ({
      collection: await updateCollection(
        request.server.app.ctx,
        tenantOf(request).storeId,
        request.params.collectionId as string,
        request.payload as CollectionInput
      )
    })
  }
});
