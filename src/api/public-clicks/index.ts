import type { ServerRoute } from '@hapi/hapi';
import { campaignClickRoute } from './routes.js';

export const publicClickRoutes: ServerRoute[] = [campaignClickRoute];
