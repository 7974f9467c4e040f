import type { ServerRoute } from '@hapi/hapi';
import { trackOrderRoute } from './routes.js';

export const publicOrderRoutes: ServerRoute[] = [trackOrderRoute];
