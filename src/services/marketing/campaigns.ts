import { containsPattern } from '../../db/like-patterns.js';
import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { assertListsExist } from './lists.js';
import { type Audience } from './audience.js';
import { collectionContext, discountContext, productContext } from './campaign-context.js';
import { campaignCounts, type CampaignCounts } from './campaign-counts.js';
import { DEFAULT_CONTENT } from './default-content.js';
import { assertWithinLimits, compileContent, type LiquidContent } from '../../platform/liquid/email-content.js';
import { scheduleCampaignStart } from './scheduling.js';
import { marketingSampleData } from './templates.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql } from '../../db/transaction.js';

export const CAMPAIGN_TYPES = ['generic', 'newsletter', 'old-customers', 'product-announcement', 'collection-announcement'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];
export const CANCELLABLE = ['scheduled', 'sending'];

export interface CampaignInput {
  templateId?: string;
  subject?: string;
  html?: string;
  text?: string;
  audience?: Audience;
  sendAt?: Date | null;
  inactiveDays?: number;
  discountCode?: string;
  productId?: string;
  collectionId?: string;
}

export interface CampaignRow {
  id: string;
  storeId: string;
  type: CampaignType;
  status: 'scheduled' | 'sending' | 'sent' | 'failed' | 'cancelled';
  templateId: string | null;
  subject: string;
  html: string;
  text: string;
  audience: Audience;
  context: Record<string, unknown>;
  recipients: number;
  batchesTotal: number;
  batchesDone: number;
  snapshotAt: Date | null;
  sendAt: Date | null;
  startedAt: Date | null;
  completedAt: Date | null;
  cancelledAt: Date | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toCampaignDto(row: CampaignRow, counts: CampaignCounts) {
  const done = counts.sent + counts.failed + counts.skipped;
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    subject: row.subject,
    templateId: row.templateId,
    audience: row.audience,
    recipients: row.recipients,
    sent: counts.sent,
    failed: counts.failed,
    skipped: counts.skipped,
    suppressed: counts.suppressed,
    unsubscribes: counts.unsubscribes,
    clicks: counts.clicks,
    progress: { processed: done, percent: row.recipients ? Math.floor((done / row.recipients) * 100) : row.status === 'sent' ? 100 : 0 },
    sendAt: row.sendAt,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
    cancelledAt: row.cancelledAt,
    error: row.error,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  };
}

/** The campaign's Liquid content: a saved template's (copied now), given inline, or the type's default. */
async function resolveContent(ctx: AppContext, storeId: string, type: CampaignType, input: CampaignInput): Promise<{ templateId: string | null; content: LiquidContent }> {
  if (input.templateId) {
    const template = await ctx.db('marketingTemplates').where({ storeId, id: input.templateId }).first('id', 'subject', 'html', 'text');
    if (!template) throw validationFailed([{ path: 'templateId', message: 'no template with this id' }]);
    return { templateId: template.id, content: { subject: template.subject, html: template.html, text: template.text } };
  }
  if (input.subject !== undefined) return { templateId: null, content: { subject: input.subject, html: input.html ?? '', text: input.text ?? '' } };
  if (type === 'product-announcement' || type === 'collection-announcement') return { templateId: null, content: DEFAULT_CONTENT[type] };
  throw validationFailed([{ path: 'templateId', message: 'give templateId, or subject with html and/or text' }]);
}

async function typeSpecifics(ctx: AppContext, storeId: string, type: CampaignType, input: CampaignInput) {
  switch (type) {
    case 'newsletter':
      return { audience: {}, context: {} };
    case 'old-customers': {
      const inactiveDays = input.inactiveDays ?? 90;
      return { audience: { inactiveDays }, context: input.discountCode ? await discountContext(ctx, storeId, input.discountCode) : {} };
    }
    case 'product-announcement':
      return { audience: input.audience ?? {}, context: await productContext(ctx, storeId, input.productId!) };
    case 'collection-announcement':
      return { audience: input.audience ?? {}, context: await collectionContext(ctx, storeId, input.collectionId!) };
    default:
      return { audience: input.audience ?? {}, context: {} };
  }
}

/** Creates a campaign of one of the five types and schedules its start (at `sendAt`, or now). */
export async function createCampaign(ctx: AppContext, storeId: string, type: CampaignType, input: CampaignInput, userId: string | null) {
  const { templateId, content } = await resolveContent(ctx, storeId, type, input);
  const compiled = compileContent(content);
  const { audience, context } = await typeSpecifics(ctx, storeId, type, input);
  const store = await ctx.db('stores').where({ id: storeId }).first('name');
  assertWithinLimits(compiled, { ...marketingSampleData(store?.name ?? '', ctx.config.appUrl), ...context });
  await assertListsExist(ctx.db, storeId, (audience as Audience).listIds ?? []);
  const id = await withTransaction(ctx, async (trx) => {
    const [row] = await trx('campaigns')
      .insert({ storeId, type, templateId, ...content, audience: JSON.stringify(audience), context: JSON.stringify(context), sendAt: input.sendAt ?? null, createdBy: userId })
      .returning(['id', 'sendAt']);
    await scheduleCampaignStart(trx, row.id, row.sendAt);
    return row.id as string;
  });
  return getCampaign(ctx, storeId, id);
}

export async function getCampaign(ctx: AppContext, storeId: string, campaignId: string, db: Sql = ctx.db) {
  const row: CampaignRow | undefined = await db('campaigns').where({ storeId, id: campaignId }).first();
  if (!row) throw notFound('Campaign');
  const counts = await campaignCounts(db as Knex, storeId, [row.id]);
  return toCampaignDto(row, counts.get(row.id)!);
}

/** Some campaigns of one store by id, with their counts (missing ids are absent): the same three statements however many streams follow them. */
export async function getCampaignsByIds(ctx: AppContext, storeId: string, campaignIds: string[]) {
  const rows: CampaignRow[] = await ctx.db('campaigns').where({ storeId }).whereIn('id', campaignIds);
  const counts = rows.length ? await campaignCounts(ctx.db, storeId, rows.map((row) => row.id)) : new Map();
  return new Map(rows.map((row) => [row.id, toCampaignDto(row, counts.get(row.id)!)]));
}

export async function listCampaigns(ctx: AppContext, storeId: string, filters: { status?: string; type?: string; q?: string }, page: PageRequest) {
  const query = ctx.db('campaigns').where({ storeId });
  if (filters.status) query.where({ status: filters.status });
  if (filters.type) query.where({ type: filters.type });
  // A campaign has no name of its own: its subject is what the operator knows it by.
  if (filters.q) query.whereRaw('lower(subject) like ?', [containsPattern(filters.q)]);
  const result = await keysetPage<CampaignRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  const counts = await campaignCounts(ctx.db, storeId, result.items.map((r) => r.id));
  return { campaigns: result.items.map((r) => toCampaignDto(r, counts.get(r.id)!)), nextCursor: result.nextCursor };
}

/** Stops a scheduled or sending campaign: recipients not yet claimed by a batch stay unsent. */
export async function cancelCampaign(ctx: AppContext, storeId: string, campaignId: string) {
  await withTransaction(ctx, async (trx) => {
    const row = await trx('campaigns').where({ storeId, id: campaignId }).forUpdate().first('status');
    if (!row) throw notFound('Campaign');
    if (!CANCELLABLE.includes(row.status)) {
      throw conflict('campaign_not_cancellable', `A ${row.status} campaign cannot be cancelled`, [{ path: 'status', message: `campaign is ${row.status}` }]);
    }
    await trx('campaigns').where({ storeId, id: campaignId }).update({ status: 'cancelled', cancelledAt: trx.fn.now(), completedAt: trx.fn.now(), updatedAt: trx.fn.now() });
    await trx('campaignRecipients').where({ storeId, campaignId, status: 'pending' }).update({ status: 'cancelled' });
  });
  return getCampaign(ctx, storeId, campaignId);
}
