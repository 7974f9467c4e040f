import type { ServerRoute } from '@hapi/hapi';
import { createRefundRoute, retryRefundRoute } from './routes.js';

export const adminOrderRefundRoutes: ServerRoute[] = [createRefundRoute, retryRefundRoute];
