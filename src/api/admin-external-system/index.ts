import type { ServerRoute } from '@hapi/hapi';
import { connectRoute, disconnectRoute, getLinkRoute, previewRoute, syncRoute } from './routes.js';

export const adminExternalSystemRoutes: ServerRoute[] = [previewRoute, connectRoute, getLinkRoute, disconnectRoute, syncRoute];
