import type { ServerRoute } from '@hapi/hapi';
import { createKey, listKeys, revokeKey } from './routes.js';

export const adminApiKeyRoutes: ServerRoute[] = [listKeys, createKey, revokeKey];
