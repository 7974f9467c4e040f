import type { ServerRoute } from '@hapi/hapi';
import { getCustomerRoute, listCustomersRoute, updateCustomerRoute } from './routes.js';
import { exportCustomersRoute, importCustomersRoute } from './transfers.js';

export const adminCustomerRoutes: ServerRoute[] = [listCustomersRoute, getCustomerRoute, updateCustomerRoute, importCustomersRoute, exportCustomersRoute];
