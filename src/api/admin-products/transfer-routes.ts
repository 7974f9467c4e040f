import Joi from 'joi';
import { startProductBulk, type BulkRequest } from '../../services/catalog/index.js';
import { startProductExport, startProductImport } from '../../services/catalog/index.js';
import type { ImportMode } from '../../services/catalog/index.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { idempotent } from '../idempotency.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { csvUploadOptions, uploadedCsv } from '../uploads.js';
import { bulkPayload, bulkResponse, exportProductsPayload, productJobResponse } from './transfer-schemas.js';

export const importProductsRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/products/import',
  options: {
    ...csvUploadOptions("A Shopify product CSV (Handle, Title, Body (HTML), … Status), up to 50 MB: the whole body, or the multipart field `file`", [409]),
    description:
      'Import products from a Shopify product CSV in a worker: 202 { job }. Handle is the key; mode upsert (default), create (existing handles are row errors) or update (unknown handles are row errors). ' +
      'The job result lists per-row errors (row, column, message), the ignored columns and the counts; images (Image Src) are fetched and stored like uploads. 409 import_running while another product import of the store runs.',
    tags: ['catalog'],
    validate: { query: Joi.object({ mode: Joi.string().valid('upsert', 'create', 'update').default('upsert') }) },
    response: { status: { 202: productJobResponse } },
    handler: adminHandler<{}, unknown, { mode: ImportMode }>(async ({ ctx, actor, payload, query, h }) => {
      const upload = uploadedCsv(payload);
      const job = await startProductImport(ctx, actor, upload, { mode: query.mode });
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    })
  }
});

export const exportProductsRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/products/export',
  options: {
    description:
      'Export products as a Shopify product CSV in a worker (filters: status, collectionId, tag, updatedSince): 202 { job }; download with GET /admin/jobs/{jobId}/download once completed. Re-importing the file and exporting again gives the same bytes.',
    tags: ['catalog'],
    validate: { payload: exportProductsPayload },
    response: { status: { 202: productJobResponse } },
    handler: adminHandler<{}, Record<string, string> | null>(async ({ ctx, actor, payload, h }) => {
      const job = await startProductExport(ctx, actor, payload ?? {});
      return h.response(withMeta({ job }, { job: { id: job.id, status: job.status } })).code(202);
    })
  }
});

export const bulkProductsRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/products/bulk',
    options: {
      plugins: { openapi: { errors: [404] } },
      description:
        'Bulk edit products named by ids or a filter: setStatus, addTags, removeTags, addToCollection, removeFromCollection, changePrice (set, percent or amount; rounding none, whole or ninety_nine), ' +
        'setInventoryPolicy, adjustStock, setStock, delete. dryRun=true answers 200 with the count only; otherwise 202 { job } (each product changed once, even across a worker restart; events as an admin edit).',
      tags: ['catalog'],
      validate: { payload: bulkPayload },
      response: { status: { 200: bulkResponse, 202: bulkResponse } },
      handler: adminHandler<{}, BulkRequest & { dryRun: boolean }>(async ({ ctx, actor, payload, h }) => {
        const { dryRun, ...body } = payload;
        const result = await startProductBulk(ctx, actor, body, dryRun);
        return h.response(withMeta(result, result.job ? { job: { id: result.job.id, status: result.job.status } } : {})).code(dryRun ? 200 : 202);
      })
    }
  })
);
