import type { ServerRoute } from '@hapi/hapi';
import { listReviewsRoute, moderateReviewRoute } from './routes.js';

export const adminReviewRoutes: ServerRoute[] = [listReviewsRoute, moderateReviewRoute];
