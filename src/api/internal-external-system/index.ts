import type { ServerRoute } from '@hapi/hapi';
import { backfillTriggerRoute, disconnectTriggerRoute } from './routes.js';

export const internalExternalSystemRoutes: ServerRoute[] = [backfillTriggerRoute, disconnectTriggerRoute];
