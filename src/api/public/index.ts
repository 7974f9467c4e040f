import type { ServerRoute } from '@hapi/hapi';
import { getPublicMediaRoute } from './media-routes.js';
import { confirmNewsletterRoute, describeNewsletterConfirmRoute } from './newsletter-confirm-routes.js';
import { describeUnsubscribeRoute, unsubscribeRoute } from './unsubscribe-routes.js';

export const publicRoutes: ServerRoute[] = [getPublicMediaRoute, unsubscribeRoute, describeUnsubscribeRoute, describeNewsletterConfirmRoute, confirmNewsletterRoute];
