import type { AppContext } from '../../context.js';
import { completeJob, createJob, findJobRow } from '../jobs/jobs.js';
import type { Tenant } from '../roles.js';
import { checkDomainRecords } from './dns-check.js';
import { findDomain, toDomainDto, type DomainRow } from './domains.js';

export const DOMAIN_CHECK_JOB = 'domain-check';

/** POST /admin/store/domain/check: queue a DNS check of the store's domain; 202 with the job. */
export async function requestDomainCheck(ctx: AppContext, tenant: Tenant) {
  const domain = await findDomain(ctx.db, tenant.storeId);
  const job = await createJob(ctx, {
    storeId: tenant.storeId,
    type: 'domain_check',
    queue: 'domains',
    name: DOMAIN_CHECK_JOB,
    input: { domainId: domain.id, hostname: domain.hostname },
    createdBy: tenant.userId,
    options: { attempts: 3, backoff: { type: 'exponential', delay: 1_000 } }
  });
  return { domain: toDomainDto(ctx, domain), job };
}

/** The DNS job: resolve, store `verified` or `failed` (naming the wrong record), complete the job row. */
export async function runDomainCheckJob(ctx: AppContext, jobId: string) {
  const job = await findJobRow(ctx, jobId);
  const domainId = (job?.input as { domainId?: string } | undefined)?.domainId;
  const domain: DomainRow | undefined = domainId ? await ctx.db('storeDomains').where({ id: domainId }).first() : undefined;
  if (!job || !domain) {
    await completeJob(ctx, jobId, { skipped: 'the domain no longer exists' });
    return null;
  }
  const checked = await checkDomainRecords(ctx, domain);
  const result = checked
    ? { hostname: checked.hostname, status: checked.status, failures: checked.failures }
    : { skipped: 'the domain changed while it was checked' };
  await completeJob(ctx, jobId, result);
  return result;
}
