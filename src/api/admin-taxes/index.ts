import type { ServerRoute } from '@hapi/hapi';
import { createTaxRegionRoute, deleteTaxRegionRoute, getTaxRegionRoute, listTaxRegionsRoute, taxReportRoute, updateTaxRegionRoute } from './routes.js';

export const adminTaxRoutes: ServerRoute[] = [listTaxRegionsRoute, createTaxRegionRoute, getTaxRegionRoute, updateTaxRegionRoute, deleteTaxRegionRoute, taxReportRoute];
