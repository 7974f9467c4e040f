import type { ServerRoute } from '@hapi/hapi';
import { createZoneRoute, deleteZoneRoute, getZoneRoute, listZonesRoute, updateZoneRoute } from './routes.js';

export const adminShippingRoutes: ServerRoute[] = [listZonesRoute, createZoneRoute, getZoneRoute, updateZoneRoute, deleteZoneRoute];
