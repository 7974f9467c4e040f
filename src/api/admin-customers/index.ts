import type { ServerRoute } from '@hapi/hapi';
import { getCustomerRoute, listCustomersRoute, updateCustomerRoute } from './routes.js';
import { exportCustomersRoute, importCustomersRoute } from './import-export-routes.js';

export const adminCustomerRoutes: ServerRoute[] = [listCustomersRoute, getCustomerRoute, updateCustomerRoute, importCustomersRoute, exportCustomersRoute];
