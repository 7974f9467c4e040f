import Joi from 'joi';
import { AUDIT_EXPORT_JOB_TYPE } from '../../services/audit/export.js';
import { CUSTOMERS_EXPORT_JOB_TYPE } from '../../services/customers/export.js';
import { CUSTOMERS_IMPORT_JOB_TYPE } from '../../services/customers/import.js';
import { DOMAIN_CHECK_JOB_TYPE } from '../../services/domains/check-job.js';
import { PRODUCTS_BULK_JOB_TYPE } from '../../services/catalog/bulk.js';
import { PRODUCTS_EXPORT_JOB_TYPE } from '../../services/catalog/csv/product-export.js';
import { PRODUCTS_IMPORT_JOB_TYPE } from '../../services/catalog/csv/product-import.js';
import { BACKFILL_JOB_TYPE } from '../../services/external-system/links.js';
import { JOB_STATUSES } from '../../services/job-history/job-runs.js';
import { idValue, responseObject, timestamp } from '../schemas.js';

/** Every `type` a tracked job run is recorded under (what `?type=` filters by). */
export const JOB_TYPES = [
  AUDIT_EXPORT_JOB_TYPE,
  CUSTOMERS_IMPORT_JOB_TYPE,
  CUSTOMERS_EXPORT_JOB_TYPE,
  PRODUCTS_IMPORT_JOB_TYPE,
  PRODUCTS_EXPORT_JOB_TYPE,
  PRODUCTS_BULK_JOB_TYPE,
  DOMAIN_CHECK_JOB_TYPE,
  BACKFILL_JOB_TYPE
];

/**
 * A job run. `progress` always has `percent` (0 until the job reports, 100 once completed) plus what
 * the job kind counts; `result` is the kind's own summary once completed (in lists, arrays are
 * replaced by `<name>Count`).
 */
export const jobResource = responseObject({
  id: idValue().required(),
  type: Joi.string().valid(...JOB_TYPES).required(),
  status: Joi.string().valid(...JOB_STATUSES).required(),
  progress: Joi.object({ percent: Joi.number().integer().min(0).max(100).required() }).unknown(true).required(),
  result: Joi.object().unknown(true).allow(null).required(),
  error: Joi.string().allow('', null).required(),
  createdAt: timestamp().required(),
  startedAt: timestamp().allow(null).required(),
  finishedAt: timestamp().allow(null).required()
}).label('Job');

export const jobResponse = responseObject({ job: jobResource.required() });
export const jobListResponse = responseObject({ jobs: Joi.array().items(jobResource).required() });
