import type { ServerRoute } from '@hapi/hapi';
import { getPublicMediaRoute } from './media.js';
import { confirmNewsletterRoute, describeNewsletterConfirmRoute } from './newsletter-confirm.js';
import { describeUnsubscribeRoute, unsubscribeRoute } from './unsubscribe.js';

export const publicRoutes: ServerRoute[] = [getPublicMediaRoute, unsubscribeRoute, describeUnsubscribeRoute, describeNewsletterConfirmRoute, confirmNewsletterRoute];
