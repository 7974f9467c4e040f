import type { ServerRoute } from '@hapi/hapi';
import { createCollectionRoute, deleteCollectionRoute, getCollectionRoute, listCollectionsRoute, updateCollectionRoute } from './routes.js';

export const adminCollectionRoutes: ServerRoute[] = [listCollectionsRoute, createCollectionRoute, getCollectionRoute, updateCollectionRoute, deleteCollectionRoute];
