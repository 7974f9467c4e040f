import type { ServerRoute } from '@hapi/hapi';
import { completeDraftOrderRoute, createDraftOrderRoute, deleteDraftOrderRoute, getDraftOrderRoute, listDraftOrdersRoute, updateDraftOrderRoute } from './routes.js';

export const adminDraftOrderRoutes: ServerRoute[] = [createDraftOrderRoute, listDraftOrdersRoute, getDraftOrderRoute, updateDraftOrderRoute, deleteDraftOrderRoute, completeDraftOrderRoute];
