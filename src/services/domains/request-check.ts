import type { AppContext } from '../../context.js';
import { domainCheckJob } from '../../jobs/domain-check.js';
import { createJob } from '../job-history/index.js';
import type { Tenant } from '../../platform/roles.js';
import { DOMAIN_CHECK_JOB_TYPE } from './check-job.js';
import { findDomain, toDomainDto } from './domains.js';
import { withTransaction } from '../../platform/with-transaction.js';

/** POST /admin/store/domain/check: queue a DNS check of the store's domain; 202 with the job. */
export async function requestDomainCheck(ctx: AppContext, tenant: Tenant) {
  return withTransaction(ctx, async (trx) => {
    const domain = await findDomain(trx, tenant.storeId);
    const job = await createJob(
      ctx,
      { storeId: tenant.storeId, kind: domainCheckJob, input: { domainId: domain.id, hostname: domain.hostname }, createdBy: tenant.userId },
      trx
    );
    return { domain: toDomainDto(ctx, domain), job };
  });
}
