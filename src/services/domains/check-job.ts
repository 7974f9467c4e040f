import type { AppContext } from '../../context.js';
import { domainCheckJob } from '../../jobs/domain-check.js';
import { completeJob, findJobRow } from '../job-history/index.js';
import { checkDomainRecords } from './dns-check.js';
import type { DomainRow } from './domains.js';

export const DOMAIN_CHECK_JOB_TYPE = domainCheckJob.type;

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
