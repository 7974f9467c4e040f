import type { ServerRoute } from '@hapi/hapi';
import { createFulfillmentRoute, getOrderRoute, listOrdersRoute, markOrderPaidRoute } from './routes.js';

export const adminOrderRoutes: ServerRoute[] = [listOrdersRoute, getOrderRoute, createFulfillmentRoute, markOrderPaidRoute];
