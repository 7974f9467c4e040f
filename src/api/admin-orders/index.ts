import type { ServerRoute } from '@hapi/hapi';
import { createFulfillmentRoute, getOrderRoute, listOrdersRoute } from './routes.js';

export const adminOrderRoutes: ServerRoute[] = [listOrdersRoute, getOrderRoute, createFulfillmentRoute];
