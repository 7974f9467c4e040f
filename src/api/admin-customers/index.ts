import type { ServerRoute } from '@hapi/hapi';
import { createCustomerRoute, deleteCustomerRoute, getCustomerRoute, listCustomersRoute, updateCustomerRoute } from './routes.js';
import { exportCustomersRoute, importCustomersRoute } from './import-export-routes.js';

export const adminCustomerRoutes: ServerRoute[] = [listCustomersRoute, createCustomerRoute, getCustomerRoute, updateCustomerRoute, deleteCustomerRoute, importCustomersRoute, exportCustomersRoute];
