import type { ServerRoute } from '@hapi/hapi';
import { domainCheckRoute, domainOnboardingRoute, getDomainRoute } from './routes.js';

export const adminDomainRoutes: ServerRoute[] = [domainOnboardingRoute, getDomainRoute, domainCheckRoute];
