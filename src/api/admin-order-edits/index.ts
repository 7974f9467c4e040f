import type { ServerRoute } from '@hapi/hapi';
import { editOrderRoute, exchangeOrderRoute, voidBalanceInvoiceRoute } from './routes.js';

export const adminOrderEditRoutes: ServerRoute[] = [editOrderRoute, exchangeOrderRoute, voidBalanceInvoiceRoute];
