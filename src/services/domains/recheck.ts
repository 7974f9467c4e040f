import type { AppContext } from '../../context.js';
import { checkDomainRecords, domainResolver } from './dns-check.js';
import type { DomainRow } from './domains.js';
import { withTransaction } from '../../platform/with-transaction.js';

/** A claimed domain is not claimed again for this long, even if its check never reports back. */
const LEASE_MS = 10 * 60_000;

/**
 * The scheduled re-check: takes domains still pending (or failed) whose next check is due, a batch
 * at a time (SKIP LOCKED, and leased by moving next_check_at, so overlapping runs or several
 * workers never check one domain twice), and checks them a few at a time. Each check spaces the
 * next one further out (dns-check.ts).
 */
export async function recheckDueDomains(ctx: AppContext, options: { batchSize?: number; concurrency?: number; maxBatches?: number } = {}) {
  const batchSize = options.batchSize ?? 200;
  const concurrency = options.concurrency ?? 25;
  const resolver = domainResolver(ctx);
  let checked = 0;
  let verified = 0;
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch++) {
    const due: DomainRow[] = await withTransaction(ctx, async (trx) => {
      const rows: DomainRow[] = await trx('storeDomains')
        .whereIn('status', ['pending', 'failed'])
        .where('nextCheckAt', '<=', trx.fn.now())
        .orderBy('nextCheckAt')
        .limit(batchSize)
        .forUpdate()
        .skipLocked();
      if (rows.length) {
        await trx('storeDomains').whereIn('id', rows.map((r) => r.id)).update({ nextCheckAt: new Date(Date.now() + LEASE_MS) });
      }
      return rows;
    });
    if (!due.length) break;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, due.length) }, async () => {
        while (next < due.length) {
          const domain = due[next++]!;
          const row = await checkDomainRecords(ctx, domain, resolver).catch((error: Error) => {
            ctx.log.warn({ domain: domain.hostname, err: { message: error.message } }, 'domain re-check failed');
            return null;
          });
          checked += 1;
          if (row?.status === 'verified') verified += 1;
        }
      })
    );
    if (due.length < batchSize) break;
  }
  return { checked, verified };
}
