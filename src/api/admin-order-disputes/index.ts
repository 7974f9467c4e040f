import type { ServerRoute } from '@hapi/hapi';
import { disputesRoute } from './routes.js';

export const adminOrderDisputeRoutes: ServerRoute[] = [disputesRoute];
