import type { ServerRoute } from '@hapi/hapi';
import { createRefundRoute } from './routes.js';

export const adminOrderRefundRoutes: ServerRoute[] = [createRefundRoute];
