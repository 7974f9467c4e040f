import type { AppContext } from '../../context.js';
import { conflict, notFound, uniqueViolation, validationFailed } from '../../errors.js';
import { randomSecret } from '../../platform/secrets.js';
import { hostnameProblem, normalizeHostname } from './hostname.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql } from '../../db/transaction.js';

export const DOMAIN_STATUSES = ['pending', 'verified', 'failed', 'active'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

export const DNS_RECORD_TYPES = ['CNAME', 'TXT'] as const;
export const DOMAIN_FAILURE_REASONS = ['missing', 'wrong', 'timeout', 'error'] as const;

export interface DomainFailure {
  type: (typeof DNS_RECORD_TYPES)[number];
  name: string;
  expected: string;
  found: string[];
  reason: (typeof DOMAIN_FAILURE_REASONS)[number];
  message: string;
}

export interface DomainRow {
  id: string;
  storeId: string;
  hostname: string;
  status: DomainStatus;
  verificationToken: string;
  failures: DomainFailure[];
  checkCount: number;
  lastCheckedAt: Date | null;
  nextCheckAt: Date | null;
  verifiedAt: Date | null;
  activatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const TXT_PREFIX = '_shopwright-verify';

export interface DnsRecord {
  type: (typeof DNS_RECORD_TYPES)[number];
  name: string;
  value: string;
}

/** What the shop owner creates at their DNS host: the CNAME that routes traffic, the TXT that proves ownership. */
export function requiredRecords(ctx: AppContext, domain: Pick<DomainRow, 'hostname' | 'verificationToken'>): DnsRecord[] {
  return [
    { type: 'CNAME', name: domain.hostname, value: ctx.config.domainTarget },
    { type: 'TXT', name: `${TXT_PREFIX}.${domain.hostname}`, value: `shopwright-verification=${domain.verificationToken}` }
  ];
}

export function toDomainDto(ctx: AppContext, row: DomainRow) {
  return {
    id: row.id,
    hostname: row.hostname,
    status: row.status,
    records: requiredRecords(ctx, row),
    onboardingUrl: `${ctx.config.adminUrl}/settings/domain?hostname=${encodeURIComponent(row.hostname)}`,
    failures: row.failures,
    lastCheckedAt: row.lastCheckedAt,
    nextCheckAt: row.nextCheckAt,
    verifiedAt: row.verifiedAt,
    activatedAt: row.activatedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  };
}
export type DomainDto = ReturnType<typeof toDomainDto>;

/** First automatic re-check a minute after onboarding; later ones spaced out (see recheck.ts). */
export const FIRST_RECHECK_MS = 60_000;

/**
 * Starts (or restarts) custom-domain onboarding. One domain per store: a new hostname replaces the
 * previous one; asking again for the same hostname keeps its token, so records already created stay valid.
 */
export async function startDomainOnboarding(ctx: AppContext, storeId: string, rawHostname: string) {
  const hostname = normalizeHostname(rawHostname);
  const platformHosts = [ctx.config.domainTarget, safeHost(ctx.config.appUrl), safeHost(ctx.config.adminUrl)].filter(Boolean) as string[];
  const problem = hostnameProblem(hostname, platformHosts);
  if (problem) throw validationFailed([{ path: 'hostname', message: problem }]);
  try {
    const row = await withTransaction(ctx, async (trx) => {
      const claimed = await trx('storeDomains').whereRaw('lower(hostname) = ?', [hostname]).whereNot({ storeId }).first('id');
      if (claimed) throw hostnameTaken();
      const current: DomainRow | undefined = await trx('storeDomains').where({ storeId }).forUpdate().first();
      if (current && current.hostname === hostname) return current;
      const values = {
        hostname,
        status: 'pending',
        verificationToken: randomSecret(24),
        failures: JSON.stringify([]),
        checkCount: 0,
        lastCheckedAt: null,
        nextCheckAt: new Date(Date.now() + FIRST_RECHECK_MS),
        verifiedAt: null,
        activatedAt: null,
        updatedAt: trx.fn.now()
      };
      const [saved]: DomainRow[] = current
        ? await trx('storeDomains').where({ id: current.id }).update(values).returning('*')
        : await trx('storeDomains').insert({ storeId, ...values }).returning('*');
      return saved!;
    });
    return { domain: toDomainDto(ctx, row) };
  } catch (error) {
    if (uniqueViolation(error) === 'store_domains_hostname_key') throw hostnameTaken();
    throw error;
  }
}

const hostnameTaken = () => conflict('conflict', 'This hostname is already connected to another store', [{ path: 'hostname', message: 'hostname is taken' }]);

function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export async function findDomain(db: Sql, storeId: string): Promise<DomainRow> {
  const row: DomainRow | undefined = await db('storeDomains').where({ storeId }).first();
  if (!row) throw notFound('Domain');
  return row;
}

export async function getDomain(ctx: AppContext, storeId: string) {
  return { domain: toDomainDto(ctx, await findDomain(ctx.db, storeId)) };
}
