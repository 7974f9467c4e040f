import type { ServerRoute } from '@hapi/hapi';
import { cancelOrderRoute, createFulfillmentRoute, getOrderRoute, listOrdersRoute, markOrderPaidRoute } from './routes.js';

export const adminOrderRoutes: ServerRoute[] = [listOrdersRoute, getOrderRoute, createFulfillmentRoute, markOrderPaidRoute, cancelOrderRoute];
