import type { ServerRoute } from '@hapi/hapi';
import { editOrderRoute, exchangeOrderRoute } from './routes.js';

export const adminOrderEditRoutes: ServerRoute[] = [editOrderRoute, exchangeOrderRoute];
