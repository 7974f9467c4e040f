import type { ServerRoute } from '@hapi/hapi';
import { dashboardLinkRoute, getPaymentsRoute, onboardingLinkRoute, resetPaymentsRoute } from './routes.js';

export const adminPaymentRoutes: ServerRoute[] = [getPaymentsRoute, onboardingLinkRoute, dashboardLinkRoute, resetPaymentsRoute];
