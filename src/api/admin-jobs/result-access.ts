import { AppError } from '../../errors.js';
import { TRACKED_JOB_KINDS } from '../../jobs/registry.js';
import type { ApiKeyScope } from '../../services/api-keys/index.js';
import type { JobDto } from '../../services/job-history/index.js';
import type { Tenant } from '../../platform/roles.js';
import { holdsScope } from '../api-key-scopes.js';

/**
 * `read_jobs` lets an API key follow jobs (status, progress, error); a job's result is the data the
 * job worked on, so reading it also needs that data's scope, which each kind declares with the job
 * (`resultScope` in src/jobs/): a customer export's file and an import's row errors need
 * `read_customers` (issue #31: a read_jobs key downloaded the customer CSV). A kind without a
 * declaration (a row left from a removed kind) is withheld from every key.
 */
const RESULT_SCOPES = new Map<string, ApiKeyScope>(TRACKED_JOB_KINDS.map((kind) => [kind.type, kind.resultScope]));

/** The scope a job type's result needs, for the document; every tracked kind has one. */
export const jobResultScopes = (): Array<[type: string, scope: ApiKeyScope]> => [...RESULT_SCOPES];

function mayReadResult(tenant: Tenant, type: string): boolean {
  const scope = RESULT_SCOPES.get(type);
  return !tenant.apiKeyId || (scope !== undefined && holdsScope(tenant, scope));
}

/** The scope a caller lacks to read this type's result (`read_customers` when the kind is unknown). */
const missingScope = (type: string): ApiKeyScope => RESULT_SCOPES.get(type) ?? 'read_customers';

/**
 * A job as this caller may see it: whole, or with `result` null and `resultWithheld` naming the
 * scope that would show it.
 */
export function jobForCaller<Job extends Pick<JobDto, 'type' | 'result'>>(tenant: Tenant, job: Job): Job & { resultWithheld?: ApiKeyScope } {
  if (mayReadResult(tenant, job.type)) return job;
  return { ...job, result: null, resultWithheld: missingScope(job.type) };
}

/** Refuses the job's file (its result) to a key without the scope of its data: 403 insufficient_scope. */
export function assertMayReadResult(tenant: Tenant, type: string): void {
  if (mayReadResult(tenant, type)) return;
  const scope = missingScope(type);
  throw new AppError(403, 'insufficient_scope', `This API key lacks the scope ${scope}, which this job's result needs`, [{ path: 'scopes', message: `requires ${scope}` }]);
}
