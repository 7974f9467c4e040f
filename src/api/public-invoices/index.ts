import type { ServerRoute } from '@hapi/hapi';
import { getInvoiceRoute, payInvoiceRoute } from './routes.js';

export const publicInvoiceRoutes: ServerRoute[] = [getInvoiceRoute, payInvoiceRoute];
