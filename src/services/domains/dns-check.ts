import { Resolver } from 'node:dns/promises';
import type { AppContext } from '../../context.js';
import { raiseIssue, resolveIssuesOf } from '../issues/index.js';
import { requiredRecords, type DnsRecord, type DomainFailure, type DomainRow } from './domains.js';
import { sameName } from './hostname.js';
import type { Sql } from '../../db/transaction.js';

/** Growing gaps between automatic re-checks of a domain that is not verified yet. */
const RECHECK_INTERVALS_MS = [60_000, 5 * 60_000, 15 * 60_000, 3600_000, 3 * 3600_000, 6 * 3600_000, 12 * 3600_000, 24 * 3600_000];

export function nextRecheckDelay(checkCount: number): number {
  return RECHECK_INTERVALS_MS[Math.min(checkCount, RECHECK_INTERVALS_MS.length - 1)]!;
}

/** A resolver on the configured servers (DNS_SERVERS), or the system's when none are set. */
export function domainResolver(ctx: AppContext): Resolver {
  const resolver = new Resolver({ timeout: ctx.config.dnsTimeoutMs, tries: 1 });
  if (ctx.config.dnsServers.length) resolver.setServers(ctx.config.dnsServers);
  return resolver;
}

type Lookup = { values: string[] } | { error: DomainFailure['reason']; message: string };

async function lookup(resolver: Resolver, record: DnsRecord): Promise<Lookup> {
  try {
    if (record.type === 'CNAME') return { values: await resolver.resolveCname(record.name) };
    return { values: (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join('')) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { values: [] };
    if (code === 'ETIMEOUT') return { error: 'timeout', message: `The DNS lookup of ${record.type} ${record.name} timed out` };
    return { error: 'error', message: `The DNS lookup of ${record.type} ${record.name} failed (${code || (error as Error).message})` };
  }
}

/** Resolves both records and says which one is wrong, if any. */
export async function evaluateRecords(resolver: Resolver, records: DnsRecord[]): Promise<DomainFailure[]> {
  const results = await Promise.all(records.map((record) => lookup(resolver, record)));
  const failures: DomainFailure[] = [];
  records.forEach((record, index) => {
    const result = results[index]!;
    const base = { type: record.type, name: record.name, expected: record.value };
    if ('error' in result) {
      failures.push({ ...base, found: [], reason: result.error, message: result.message });
    } else if (!result.values.length) {
      failures.push({ ...base, found: [], reason: 'missing', message: `No ${record.type} record found at ${record.name}` });
    } else if (!result.values.some((value) => (record.type === 'CNAME' ? sameName(value, record.value) : value === record.value))) {
      failures.push({ ...base, found: result.values, reason: 'wrong', message: `The ${record.type} record at ${record.name} is ${result.values.join(', ')}, expected ${record.value}` });
    }
  });
  return failures;
}

/**
 * Checks a domain's records and stores the outcome: `verified` when both are right, otherwise
 * `failed` with each wrong record named. An `active` domain (certificate issued) stays active
 * while its records stay right. Every check schedules the next automatic one further out.
 */
export async function checkDomainRecords(ctx: AppContext, domain: DomainRow, resolver = domainResolver(ctx)) {
  const failures = await evaluateRecords(resolver, requiredRecords(ctx, domain));
  const ok = failures.length === 0;
  const [row]: DomainRow[] = await ctx.db('storeDomains')
    .where({ id: domain.id, hostname: domain.hostname })
    .update({
      status: ok ? ctx.db.raw("CASE WHEN status = 'active' THEN 'active' ELSE 'verified' END") : 'failed',
      failures: JSON.stringify(failures),
      checkCount: ctx.db.raw('check_count + 1'),
      lastCheckedAt: ctx.db.fn.now(),
      nextCheckAt: ok ? null : new Date(Date.now() + nextRecheckDelay(domain.checkCount + 1)),
      verifiedAt: ok ? ctx.db.raw('coalesce(verified_at, now())') : null,
      updatedAt: ctx.db.fn.now()
    })
    .returning('*');
  // The hostname changed while we resolved: the result belongs to a domain that no longer exists.
  if (!row) return null;
  if (!ok) await onDomainCheckFailed(ctx.db, row, failures);
  else await resolveIssuesOf(ctx.db, row.storeId, 'dns_failed', row.hostname);
  return row;
}

/** The operator sees a DNS failure as an issue (one per hostname while open, occurrences counted). */
async function onDomainCheckFailed(db: Sql, row: DomainRow, failures: DomainFailure[]): Promise<void> {
  await raiseIssue(db, {
    storeId: row.storeId,
    kind: 'dns_failed',
    subject: row.hostname,
    severity: 'warning',
    title: `DNS records of ${row.hostname} are not right yet`,
    detail: failures.map((f) => f.message).join('\n')
  });
}
