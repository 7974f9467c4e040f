import Joi from 'joi';
import { changeInventory, createProduct, deleteProduct, getProduct, listProducts, type ProductInput, type ProductStatus, setProductStatus, toAdminVariantDto, updateProduct } from '../../services/catalog/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { inventoryHistory } from '../../services/catalog/index.js';
import { inventoryHistoryResponse } from './transfer-schemas.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import {
  createProductPayload,
  inventoryAdjustmentResponse,
  inventoryPayload,
  listProductsQuery,
  productListResponse,
  productDeletedResponse,
  productResponse,
  statusPayload,
  updateProductPayload
} from './schemas.js';

type ProductParams = { productId: string };
type ListProductsQuery = { limit: number; cursor?: string; status?: ProductStatus; q?: string; collectionId?: string; sort: string };

export const listProductsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/products',
  options: {
    description: 'List products, newest first (created, then id, descending) unless sort says otherwise; filters status, q (full-text or exact SKU), collectionId',
    tags: ['catalog'],
    validate: { query: Joi.object({ ...paginationQuery, ...listProductsQuery }) },
    response: { status: { 200: productListResponse } },
    handler: adminHandler<{}, undefined, ListProductsQuery>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, status, q, collectionId, sort } = query;
      const result = await listProducts(ctx, storeId, { status, q: q || undefined, collectionId, sort }, { limit, cursor });
      return withMeta({ products: result.products }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const createProductRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/products',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Create a product with its options, variants and media; slug derived from the title when absent',
    tags: ['catalog'],
    validate: { payload: createProductPayload },
    response: { status: { 201: productResponse } },
    handler: adminHandler<{}, ProductInput & { title: string }>(async ({ ctx, storeId, actor, payload, h }) => {
      const product = await createProduct(ctx, storeId, actor.userId, payload);
      return h.response({ product }).code(201);
    })
  }
});

export const getProductRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/products/{productId}',
  options: {
    description: 'Get a product with variants, media and collections',
    tags: ['catalog'],
    validate: { params: idParams('productId') },
    response: { status: { 200: productResponse } },
    handler: adminHandler<ProductParams>(async ({ ctx, storeId, params }) => ({ product: await getProduct(ctx, storeId, params.productId) }))
  }
});

export const updateProductRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/products/{productId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Partial update; variants matched by id, new ones created, missing ones removed (archived when ordered)',
    tags: ['catalog'],
    validate: { params: idParams('productId'), payload: updateProductPayload },
    response: { status: { 200: productResponse } },
    handler: adminHandler<ProductParams, ProductInput>(async ({ ctx, storeId, actor, params, payload }) => ({
      product: await updateProduct(ctx, storeId, actor.userId, params.productId, payload)
    }))
  }
});

export const productStatusRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/products/{productId}/status',
  options: {
    description: 'Set a product status: draft, active or archived',
    tags: ['catalog'],
    validate: { params: idParams('productId'), payload: statusPayload },
    response: { status: { 200: productResponse } },
    handler: adminHandler<ProductParams, { status: ProductStatus }>(async ({ ctx, storeId, params, payload }) => ({
      product: await setProductStatus(ctx, storeId, params.productId, payload.status)
    }))
  }
});

export const deleteProductRoute = adminRoute(ANY_MEMBER, {
  method: 'DELETE',
  path: '/admin/products/{productId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Delete a product never ordered and in no open checkout (409 product_in_use: archive it instead); webhook topic product.deleted',
    tags: ['catalog'],
    validate: { params: idParams('productId') },
    response: { status: { 200: productDeletedResponse } },
    handler: adminHandler<ProductParams>(({ ctx, storeId, params }) => deleteProduct(ctx, storeId, params.productId))
  }
});

export const adjustInventoryRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/products/{productId}/variants/{variantId}/inventory',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Adjust stock by delta (moves inventoryQuantity, what can still be sold) or count it: quantity sets what is on hand, units held by open checkouts included, so inventoryQuantity becomes quantity less reserved; atomically, with a ledger entry; 409 insufficient_inventory below zero',
    tags: ['catalog'],
    validate: { params: idParams('productId', 'variantId'), payload: inventoryPayload },
    response: { status: { 200: inventoryAdjustmentResponse } },
    handler: adminHandler<ProductParams & { variantId: string }, { delta?: number; quantity?: number; reason?: string | null }>(async ({ ctx, storeId, actor, params, payload }) => {
      const { delta, quantity, reason } = payload;
      const change = { userId: actor.userId, reason: reason || (delta !== undefined ? 'adjustment' : 'stock_count'), productId: params.productId };
      const amount = delta !== undefined ? { delta } : { quantity: quantity! };
      const result = await changeInventory(ctx, storeId, params.variantId, { ...change, ...amount });
      return { variant: toAdminVariantDto(result.variant), adjustment: result.adjustment, reserved: result.reserved };
    })
  }
});

export const inventoryHistoryRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/products/{productId}/inventory-history',
  options: {
    description:
      "The product's stock moves, newest first (paginated; variantId narrows to one variant): delta, stock after, reason (sale, cancel, refund, return, manual, import, bulk, sync), note, actor, order or job",
    tags: ['catalog'],
    validate: { params: idParams('productId'), query: Joi.object({ ...paginationQuery, variantId: Joi.string().uuid() }) },
    response: { status: { 200: inventoryHistoryResponse } },
    handler: adminHandler<ProductParams, undefined, { limit: number; cursor?: string; variantId?: string }>(async ({ ctx, storeId, params, query }) => {
      const { limit, cursor, variantId } = query;
      const result = await inventoryHistory(ctx, storeId, params.productId, { variantId }, { limit, cursor });
      return withMeta({ entries: result.entries }, paginationMeta(limit, result.nextCursor));
    })
  }
});
