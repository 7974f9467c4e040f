import type { ServerRoute } from '@hapi/hapi';
import { createDiscountRoute, deleteDiscountRoute, getDiscountRoute, listDiscountsRoute, replaceDiscountRoute } from './routes.js';

export const adminDiscountRoutes: ServerRoute[] = [listDiscountsRoute, createDiscountRoute, getDiscountRoute, replaceDiscountRoute, deleteDiscountRoute];
