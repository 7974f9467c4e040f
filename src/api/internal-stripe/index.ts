import type { ServerRoute } from '@hapi/hapi';
import { stripeWebhookRoute } from './routes.js';

export const internalStripeRoutes: ServerRoute[] = [stripeWebhookRoute];
