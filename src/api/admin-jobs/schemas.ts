import Joi from 'joi';
import { TRACKED_JOB_KINDS } from '../../jobs/registry.js';
import { API_KEY_SCOPES } from '../../services/api-keys/index.js';
import { JOB_STATUSES } from '../../services/job-history/index.js';
import { CUSTOMERS_EXPORT_JOB_TYPE, CUSTOMERS_IMPORT_JOB_TYPE } from '../../services/customers/index.js';
import { DOMAIN_CHECK_JOB_TYPE } from '../../services/domains/index.js';
import { BACKFILL_JOB_TYPE } from '../../services/external-system/index.js';
import { AUDIT_EXPORT_JOB_TYPE } from '../../use-cases/audit-export.js';
import { PRODUCTS_BULK_JOB_TYPE } from '../../services/catalog/index.js';
import { PRODUCTS_EXPORT_JOB_TYPE } from '../../services/catalog/index.js';
import { PRODUCTS_IMPORT_JOB_TYPE } from '../../services/catalog/index.js';
import { idValue, responseObject, timestamp } from '../schemas.js';
import { jobResultScopes } from './result-access.js';

/** Every `type` a tracked job run is recorded under (what `?type=` filters by). */
export const JOB_TYPES = TRACKED_JOB_KINDS.map((kind) => kind.type);

/** What the document says an API key needs to read each type's result. */
export const JOB_RESULT_SCOPES_TEXT = jobResultScopes()
  .map(([type, scope]) => `${type}: ${scope}`)
  .join(', ');

/** What the job routes say about API keys: a result needs the scope of its data. */
export const JOB_RESULT_SCOPE_NOTE = `An API key needs read_jobs, and to see a job's result (and file) also the scope of its data (${JOB_RESULT_SCOPES_TEXT}); without it \`result\` is null and \`resultWithheld\` names the scope`;

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
  resultWithheld: Joi.string()
    .valid(...API_KEY_SCOPES)
    .description(
      `Only for an API key that lacks the scope of the job's data: the scope that would show \`result\` (then null) and the file. By type: ${JOB_RESULT_SCOPES_TEXT}`
    ),
  error: Joi.string().allow('', null).required(),
  createdAt: timestamp().required(),
  startedAt: timestamp().allow(null).required(),
  finishedAt: timestamp().allow(null).required()
}).label('Job');

export const jobResponse = responseObject({ job: jobResource.required() });
export const jobListResponse = responseObject({ jobs: Joi.array().items(jobResource).required() });
