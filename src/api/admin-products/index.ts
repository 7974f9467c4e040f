import type { ServerRoute } from '@hapi/hapi';
import {
  adjustInventoryRoute,
  createProductRoute,
  deleteProductRoute,
  getProductRoute,
  inventoryHistoryRoute,
  listProductsRoute,
  productStatusRoute,
  updateProductRoute
} from './routes.js';
import { bulkProductsRoute, exportProductsRoute, importProductsRoute } from './transfer-routes.js';

export const adminProductRoutes: ServerRoute[] = [
  listProductsRoute,
  createProductRoute,
  getProductRoute,
  updateProductRoute,
  deleteProductRoute,
  productStatusRoute,
  adjustInventoryRoute,
  inventoryHistoryRoute,
  importProductsRoute,
  exportProductsRoute,
  bulkProductsRoute
];
