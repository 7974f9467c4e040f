import type { ServerRoute } from '@hapi/hapi';
import { createDiscountRoute, getDiscountRoute, listDiscountsRoute, replaceDiscountRoute } from './routes.js';

export const adminDiscountRoutes: ServerRoute[] = [listDiscountsRoute, createDiscountRoute, getDiscountRoute, replaceDiscountRoute];
