import type { ServerRoute } from '@hapi/hapi';
import { describeUnsubscribeRoute, unsubscribeRoute } from './unsubscribe.js';

export const publicRoutes: ServerRoute[] = [unsubscribeRoute, describeUnsubscribeRoute];
