import type { ServerRoute } from '@hapi/hapi';
import { editOrderRoute, exchangeOrderRoute, markBalancePaidRoute, voidBalanceInvoiceRoute } from './routes.js';

export const adminOrderEditRoutes: ServerRoute[] = [editOrderRoute, exchangeOrderRoute, voidBalanceInvoiceRoute, markBalancePaidRoute];
