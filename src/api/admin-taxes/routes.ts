import Joi from 'joi';
import { createTaxRegion, deleteTaxRegion, getTaxRegion, listTaxRegions, startTaxReport, updateTaxRegion, type TaxRegionInput, type TaxReportInput } from '../../services/taxes/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS, ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { paginationQuery } from '../schemas.js';
import {
  createTaxRegionPayload,
  listTaxRegionsQuery,
  taxRegionListResponse,
  taxRegionParams,
  taxRegionResponse,
  taxReportJobResponse,
  taxReportPayload,
  updateTaxRegionPayload
} from './schemas.js';

type RegionParams = { regionId: string };
const TAGS = ['taxes'];

export const listTaxRegionsRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/tax-regions',
  options: {
    description: "The store's tax regions (oldest first); ?country= filters",
    tags: TAGS,
    validate: { query: Joi.object({ ...paginationQuery, ...listTaxRegionsQuery }) },
    response: { status: { 200: taxRegionListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; country?: string }>(async ({ ctx, storeId, query }) => {
      const result = await listTaxRegions(ctx, storeId, { country: query.country }, { limit: query.limit, cursor: query.cursor });
      return withMeta({ taxRegions: result.taxRegions }, paginationMeta(query.limit, result.nextCursor));
    })
  }
});

export const createTaxRegionRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/tax-regions',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Add a tax region: a country, or one of its subdivisions (region, ISO 3166-2: CA or US-CA), with a default rate (basis points), rates per tax class and whether shipping is taxed. ' +
      "An address in a region with its own entry pays that entry's rates, else its country's. 409 when the country/region has one already. Owner or admin",
    tags: TAGS,
    validate: { payload: createTaxRegionPayload },
    response: { status: { 201: taxRegionResponse } },
    handler: adminHandler<{}, TaxRegionInput>(async ({ ctx, storeId, payload, h }) => h.response({ taxRegion: await createTaxRegion(ctx, storeId, payload) }).code(201))
  }
});

export const getTaxRegionRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/tax-regions/{regionId}',
  options: {
    description: 'A tax region',
    tags: TAGS,
    validate: { params: taxRegionParams },
    response: { status: { 200: taxRegionResponse } },
    handler: adminHandler<RegionParams>(async ({ ctx, storeId, params }) => ({ taxRegion: await getTaxRegion(ctx, storeId, params.regionId) }))
  }
});

export const updateTaxRegionRoute = adminRoute(ADMINS, {
  method: 'PATCH',
  path: '/admin/tax-regions/{regionId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Change a tax region (partial); orders placed keep the tax they were charged. Owner or admin',
    tags: TAGS,
    validate: { params: taxRegionParams, payload: updateTaxRegionPayload },
    response: { status: { 200: taxRegionResponse } },
    handler: adminHandler<RegionParams, Partial<TaxRegionInput>>(async ({ ctx, storeId, params, payload }) => ({
      taxRegion: await updateTaxRegion(ctx, storeId, params.regionId, payload)
    }))
  }
});

export const deleteTaxRegionRoute = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/tax-regions/{regionId}',
  options: {
    description: 'Remove a tax region: 204. Owner or admin',
    tags: TAGS,
    validate: { params: taxRegionParams },
    plugins: { openapi: { success: { status: 204, description: 'Deleted', content: null } } },
    handler: adminHandler<RegionParams>(async ({ ctx, storeId, params, h }) => {
      await deleteTaxRegion(ctx, storeId, params.regionId);
      return h.response().code(204);
    })
  }
});

export const taxReportRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/reports/tax',
  options: {
    description:
      'Tax collected and refunded per jurisdiction, tax, rate and month (UTC) as CSV, built in a worker: 202 { job }; download with GET /admin/jobs/{jobId}/download once completed. ' +
      'Optional from/to months (YYYY-MM). Owner or admin',
    tags: TAGS,
    validate: { payload: taxReportPayload },
    response: { status: { 202: taxReportJobResponse } },
    handler: adminHandler<{}, TaxReportInput | null>(async ({ ctx, actor, payload, h }) => {
      const job = await startTaxReport(ctx, actor, payload ?? {});
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    })
  }
});
