import Joi from 'joi';
import { changeInventory } from '../../services/catalog/inventory.js';
import { inventoryHistory } from '../../services/catalog/inventory-history.js';
import { createProduct, deleteProduct, getProduct, listProducts, setProductStatus, updateProduct, type ProductInput } from '../../services/catalog/products.js';
import { toAdminVariantDto, type ProductStatus } from '../../services/catalog/product-rows.js';
import { paginationMeta } from '../../services/pagination.js';
import { inventoryHistoryResponse } from './transfer-schemas.js';
import { ANY_MEMBER } from '../../services/roles.js';
import { tenantOf } from '../plugins/auth.js';
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

export const listProductsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/products',
  options: {
    description: 'List products (newest first); filters status, q (full-text or exact SKU), collectionId',
    tags: ['catalog'],
    validate: { query: Joi.object({ ...paginationQuery, ...listProductsQuery }) },
    response: { status: { 200: productListResponse } },
    handler: async (request) => {
      const { limit, cursor, status, q, collectionId } = request.query as { limit: number; cursor?: string; status?: ProductStatus; q?: string; collectionId?: string };
      const result = await listProducts(request.server.app.ctx, tenantOf(request).storeId, { status, q: q || undefined, collectionId }, { limit, cursor });
      return withMeta({ products: result.products }, paginationMeta(limit, result.nextCursor));
    }
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
    handler: async (request, h) => {
      const tenant = tenantOf(request);
      const product = await createProduct(request.server.app.ctx, tenant.storeId, tenant.userId, request.payload as ProductInput & { title: string });
      return h.response({ product }).code(201);
    }
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
    handler: async (request) => ({
      product: await getProduct(request.server.app.ctx, tenantOf(request).storeId, request.params.productId as string)
    })
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
    handler: async (request) => {
      const tenant = tenantOf(request);
      return {
        product: await updateProduct(request.server.app.ctx, tenant.storeId, tenant.userId, request.params.productId as string, request.payload as ProductInput)
      };
    }
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
    handler: async (request) => ({
      product: await setProductStatus(
        request.server.app.ctx,
        tenantOf(request).storeId,
        request.params.productId as string,
        (request.payload as { status: ProductStatus }).status
      )
    })
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
    handler: async (request) => deleteProduct(request.server.app.ctx, tenantOf(request).storeId, request.params.productId as string)
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
    handler: async (request) => {
      const tenant = tenantOf(request);
      const { delta, quantity, reason } = request.payload as { delta?: number; quantity?: number; reason?: string | null };
      const change = { userId: tenant.userId, reason: reason || (delta !== undefined ? 'adjustment' : 'stock_count'), productId: request.params.productId as string };
      const variantId = request.params.variantId as string;
      const amount = delta !== undefined ? { delta } : { quantity: quantity! };
      const result = await changeInventory(request.server.app.ctx, tenant.storeId, variantId, { ...change, ...amount });
      return { variant: toAdminVariantDto(result.variant), adjustment: result.adjustment, reserved: result.reserved };
    }
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
    handler: async (request) => {
      const { limit, cursor, variantId } = request.query as { limit: number; cursor?: string; variantId?: string };
      const result = await inventoryHistory(request.server.app.ctx, tenantOf(request).storeId, request.params.productId as string, { variantId }, { limit, cursor });
      return withMeta({ entries: result.entries }, paginationMeta(limit, result.nextCursor));
    }
  }
});
