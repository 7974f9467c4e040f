import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { externalSystemBackfillJob } from '../../jobs/external-system-backfill.js';
import { createJob, toJobDto } from '../job-history/index.js';
import type { Tenant } from '../../platform/roles.js';
import { decryptSecret, encryptSecret, randomSecret } from '../../platform/secrets.js';
import { asUpstreamError, ExternalSystemClient, type ExternalPage } from './client.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export const BACKFILL_JOB_TYPE = externalSystemBackfillJob.type;
export const LINK_STATUSES = ['connected', 'disconnected'] as const;

export interface LinkRow {
  id: string;
  storeId: string;
  status: (typeof LINK_STATUSES)[number];
  baseUrl: string;
  accountId: string;
  accountName: string;
  apiKeyEncrypted: string;
  webhookSecretEncrypted: string;
  syncProducts: boolean;
  syncCustomers: boolean;
  connectedAt: Date | null;
  disconnectedAt: Date | null;
  lastSyncedAt: Date | null;
}

export interface LinkRequest {
  baseUrl: string;
  apiKey: string;
  syncProducts?: boolean;
  syncCustomers?: boolean;
}

export function clientFor(ctx: AppContext, baseUrl: string, apiKey: string, options: { retries?: number } = {}) {
  return new ExternalSystemClient(baseUrl, apiKey, { allowPrivateHosts: ctx.config.allowPrivateExternalHosts, ...options });
}

/** Pages at most this far when counting for a preview; past it the count is a lower bound. */
const PREVIEW_MAX_PAGES = 50;

async function countAll<T>(fetchPage: (cursor: string | null) => Promise<ExternalPage<T>>): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  for (let page = 0; page < PREVIEW_MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    count += Array.isArray(result.data) ? result.data.length : 0;
    cursor = result.nextCursor ?? null;
    if (!cursor) break;
  }
  return count;
}

/** Calls the external system with the given key and says what a connect would bring in. Saves nothing. */
export async function previewLink(ctx: AppContext, input: LinkRequest) {
  const client = clientFor(ctx, input.baseUrl, input.apiKey, { retries: 1 });
  try {
    const account = await client.account();
    const [products, customers] = await Promise.all([countAll((c) => client.products(c)), countAll((c) => client.customers(c))]);
    return { account: { id: String(account.id), name: String(account.name) }, counts: { products, customers } };
  } catch (error) {
    throw asUpstreamError(error);
  } finally {
    client.close();
  }
}

export const toLinkDto = (row: LinkRow) => ({
  status: row.status,
  accountId: row.accountId,
  accountName: row.accountName,
  baseUrl: row.baseUrl,
  syncProducts: row.syncProducts,
  syncCustomers: row.syncCustomers,
  connectedAt: row.connectedAt,
  disconnectedAt: row.disconnectedAt,
  lastSyncedAt: row.lastSyncedAt
});

/**
 * Connects the store to an external account. The key is checked against the external API again
 * (the address guard runs on this very connection, so a baseUrl that now resolves elsewhere is
 * refused), stored encrypted, and a fresh webhook secret is returned this once. The first
 * backfill is queued in the same transaction as the link.
 */
export async function connectLink(ctx: AppContext, tenant: Tenant, input: LinkRequest) {
  const client = clientFor(ctx, input.baseUrl, input.apiKey, { retries: 1 });
  let account;
  try {
    account = await client.account();
  } catch (error) {
    throw asUpstreamError(error);
  } finally {
    client.close();
  }
  const webhookSecret = `whsec_${randomSecret(32)}`;
  const key = ctx.config.encryptionKey;
  return withTransaction(ctx, async (trx) => {
    const values = {
      status: 'connected',
      baseUrl: input.baseUrl.replace(/\/+$/, ''),
      accountId: String(account.id),
      accountName: String(account.name),
      apiKeyEncrypted: encryptSecret(input.apiKey, key),
      webhookSecretEncrypted: encryptSecret(webhookSecret, key),
      syncProducts: input.syncProducts ?? true,
      syncCustomers: input.syncCustomers ?? true,
      connectedAt: trx.fn.now(),
      disconnectedAt: null,
      updatedAt: trx.fn.now()
    };
    const [row]: LinkRow[] = await trx('externalSystemLinks')
      .insert({ storeId: tenant.storeId, ...values })
      .onConflict('storeId')
      .merge()
      .returning('*');
    const job = await queueBackfill(ctx, trx, tenant.storeId, tenant.userId, 'connect');
    return { link: { ...toLinkDto(row!), webhookSecret }, job };
  });
}

async function queueBackfill(ctx: AppContext, trx: Transaction, storeId: string, userId: string | null, reason: string) {
  return createJob(ctx, { storeId, kind: externalSystemBackfillJob, input: { reason }, createdBy: userId }, trx);
}

async function connectedLink(db: Sql, storeId: string, lock = false): Promise<LinkRow> {
  const query = db('externalSystemLinks').where({ storeId });
  if (lock) query.forUpdate();
  const row: LinkRow | undefined = await query.first();
  if (!row) throw notFound('External-system link');
  if (row.status !== 'connected') throw conflict('conflict', 'The store is not connected to an external system');
  return row;
}

export async function disconnectLink(ctx: AppContext, storeId: string) {
  const [row]: LinkRow[] = await ctx.db('externalSystemLinks')
    .where({ storeId })
    .update({ status: 'disconnected', disconnectedAt: ctx.db.raw('coalesce(disconnected_at, now())'), updatedAt: ctx.db.fn.now() })
    .returning('*');
  if (!row) throw notFound('External-system link');
  return { link: toLinkDto(row) };
}

/** POST .../sync: a backfill now (202). One at a time: a queued or running backfill is returned instead. */
export async function requestSync(ctx: AppContext, storeId: string, userId: string | null, reason = 'manual') {
  return withTransaction(ctx, async (trx) => {
    await connectedLink(trx, storeId, true);
    const running = await trx('jobs').where({ storeId, type: BACKFILL_JOB_TYPE }).whereIn('status', ['queued', 'active']).orderBy('createdAt', 'desc').first();
    if (running) return { job: toJobDto(running) };
    return { job: await queueBackfill(ctx, trx, storeId, userId, reason) };
  });
}

export async function getLink(ctx: AppContext, storeId: string) {
  const row: LinkRow | undefined = await ctx.db('externalSystemLinks').where({ storeId }).first();
  if (!row) throw notFound('External-system link');
  return { link: toLinkDto(row) };
}

/** The connected links of an external account with their webhook secrets, for signature checks. */
export async function linksOfAccount(ctx: AppContext, accountId: string): Promise<Array<{ row: LinkRow; secret: string }>> {
  const rows: LinkRow[] = await ctx.db('externalSystemLinks').comment('cross-store: external system account').where({ accountId, status: 'connected' }).limit(50);
  const result: Array<{ row: LinkRow; secret: string }> = [];
  for (const row of rows) {
    try {
      result.push({ row, secret: decryptSecret(row.webhookSecretEncrypted, ctx.config.encryptionKey) });
    } catch {
      // Sealed under an older ENCRYPTION_KEY: it cannot verify anything.
    }
  }
  return result;
}
