import type { ServerRoute } from '@hapi/hapi';
import { adjustInventoryRoute, createProductRoute, deleteProductRoute, getProductRoute, listProductsRoute, productStatusRoute, updateProductRoute } from './routes.js';

export const adminProductRoutes: ServerRoute[] = [
  listProductsRoute,
  createProductRoute,
  getProductRoute,
  updateProductRoute,
  deleteProductRoute,
  productStatusRoute,
  adjustInventoryRoute
];
