import type { ServerRoute } from '@hapi/hapi';
import { hostedDomainWebhookRoute } from './routes.js';

export const internalHostedDomainRoutes: ServerRoute[] = [hostedDomainWebhookRoute];
