import Joi from 'joi';
import { createCollection, deleteCollection, getCollectionPage, listCollections, updateCollection, type CollectionInput } from '../../services/catalog/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { collectionDeletedResponse, collectionListResponse, collectionResponse, createCollectionPayload, updateCollectionPayload } from './schemas.js';

type CollectionParams = { collectionId: string };

export const listCollectionsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/collections',
  options: {
    description: 'List collections (newest first); q matches anywhere in the title or slug (handle), case-insensitively (% and _ match themselves)',
    tags: ['catalog'],
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(200).allow(''), isPublished: Joi.boolean() }) },
    response: { status: { 200: collectionListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; q?: string; isPublished?: boolean }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, q, isPublished } = query;
      const result = await listCollections(ctx, storeId, { q, isPublished }, { limit, cursor });
      return withMeta({ collections: result.collections }, paginationMeta(limit, result.nextCursor));
    })
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
    handler: adminHandler<{}, CollectionInput & { title: string }>(async ({ ctx, storeId, payload, h }) => {
      const collection = await createCollection(ctx, storeId, payload);
      return h.response({ collection }).code(201);
    })
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
    handler: adminHandler<CollectionParams, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, params, query }) => {
      const { limit, cursor } = query;
      const result = await getCollectionPage(ctx, storeId, params.collectionId, { limit, cursor });
      return withMeta({ collection: result.collection }, paginationMeta(limit, result.nextCursor));
    })
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
    handler: adminHandler<CollectionParams, CollectionInput>(async ({ ctx, storeId, params, payload }) => ({
      collection: await updateCollection(ctx, storeId, params.collectionId, payload)
    }))
  }
});

export const deleteCollectionRoute = adminRoute(ANY_MEMBER, {
  method: 'DELETE',
  path: '/admin/collections/{collectionId}',
  options: {
    description: 'Delete a collection; its products stay (they leave the collection only). Any member, like the rest of the catalog',
    tags: ['catalog'],
    validate: { params: idParams('collectionId') },
    response: { status: { 200: collectionDeletedResponse } },
    handler: adminHandler<CollectionParams>(({ ctx, storeId, params }) => deleteCollection(ctx, storeId, params.collectionId))
  }
});
