import type { ServerRoute } from '@hapi/hapi';
import { listProductReviewsRoute, putProductReviewRoute } from './routes.js';

export const storefrontReviewRoutes: ServerRoute[] = [listProductReviewsRoute, putProductReviewRoute];
