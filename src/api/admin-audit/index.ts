import type { ServerRoute } from '@hapi/hapi';
import { exportAuditLogRoute, listAuditLogRoute, verifyAuditLogRoute } from './routes.js';

export const adminAuditRoutes: ServerRoute[] = [listAuditLogRoute, verifyAuditLogRoute, exportAuditLogRoute];
