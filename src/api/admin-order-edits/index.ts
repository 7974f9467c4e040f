import type { ServerRoute } from '@hapi/hapi';
import { editOrderRoute, exchangeOrderRoute, listBalanceInvoicesRoute, markBalancePaidRoute, voidBalanceInvoiceRoute } from './routes.js';

export const adminOrderEditRoutes: ServerRoute[] = [editOrderRoute, exchangeOrderRoute, listBalanceInvoicesRoute, voidBalanceInvoiceRoute, markBalancePaidRoute];
