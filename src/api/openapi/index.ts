import type { ServerRoute } from '@hapi/hapi';
import { getOpenApi } from './routes.js';

export const openApiRoutes: ServerRoute[] = [getOpenApi];
