import type { AppContext } from '../../context.js';
import { reactInTransaction } from '../../platform/events/domain-events.js';
import { audienceCondition, type Audience } from './audience.js';
import { enqueueBatches } from './scheduling.js';
import { withTransaction } from '../../platform/with-transaction.js';

/**
 * The campaign job: moves the campaign to `sending`, snapshots its audience into
 * `campaign_recipients` with one INSERT … SELECT (a batch is a slice of the customer-id range), and fans the
 * batches out. Each step is idempotent, so a retried or repeated start resumes where it stopped.
 */
export async function startCampaign(ctx: AppContext, campaignId: string) {
  const storeId = await campaignStore(ctx, campaignId);
  if (!storeId) return { started: false };
  const claimed = await ctx
    .db('campaigns')
    .where({ storeId, id: campaignId })
    .whereIn('status', ['scheduled', 'sending'])
    .update({ status: 'sending', startedAt: ctx.db.raw('coalesce(started_at, now())'), updatedAt: ctx.db.fn.now() })
    .returning(['id', 'storeId', 'audience', 'snapshotAt']);
  const campaign = claimed[0];
  if (!campaign) return { started: false };

  if (!campaign.snapshotAt) await snapshotRecipients(ctx, campaignId, campaign.storeId, campaign.audience as Audience);
  const pending = (await ctx.db('campaignBatches').where({ storeId: campaign.storeId, campaignId }).whereNull('doneAt').orderBy('batch').pluck('batch')) as number[];
  await enqueueBatches(ctx, campaignId, pending);
  return { started: true, batches: pending.length };
}

async function snapshotRecipients(ctx: AppContext, campaignId: string, storeId: string, audience: Audience) {
  const batchSize = ctx.config.marketing.batchSize;
  await withTransaction(ctx, async (trx) => {
    const locked = await trx('campaigns').where({ storeId, id: campaignId }).forUpdate().first('snapshotAt', 'status');
    if (locked.snapshotAt || locked.status !== 'sending') return;
    const where = await audienceCondition(ctx, trx, storeId, audience);
    const inserted = await trx.raw(
      `insert into campaign_recipients (store_id, campaign_id, customer_id) select ?, ?, c.id from customers c where ${where.sql}`,
      [storeId, campaignId, ...where.bindings]
    );
    const recipients = inserted.rowCount as number;
    const batches = Math.ceil(recipients / batchSize);
    if (batches) await trx.raw('insert into campaign_batches (store_id, campaign_id, batch) select ?, ?, generate_series(0, ? - 1)', [storeId, campaignId, batches]);
    await trx('campaigns')
      .where({ storeId, id: campaignId })
      .update({
        recipients,
        batchesTotal: batches,
        snapshotAt: trx.raw('clock_timestamp()'),
        updatedAt: trx.fn.now(),
        // Nobody to send to: done at once.
        ...(batches === 0 ? { status: 'sent', completedAt: trx.fn.now() } : {})
      });
    if (batches === 0) await reactInTransaction(ctx, trx, [{ type: 'campaign.sent', storeId, campaignId }]);
  });
}

const UUID_SPACE = 1n << 128n;

function uuidAt(value: bigint): string {
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The customer ids of batch `batch` of `total`: the batch-th equal slice of the uuid space, as
 * [from, to) (`to` null for the last). Customer ids are random, so slices hold about as many
 * recipients each, and no per-batch numbering has to be written at snapshot time.
 */
export function batchRange(batch: number, total: number): [string, string | null] {
  const from = (UUID_SPACE * BigInt(batch)) / BigInt(total);
  const to = batch + 1 >= total ? null : (UUID_SPACE * BigInt(batch + 1)) / BigInt(total);
  return [uuidAt(from), to === null ? null : uuidAt(to)];
}

/** Marks one batch done (once), and the campaign sent when it was the last one. */
export async function completeBatch(ctx: AppContext, storeId: string, campaignId: string, batch: number): Promise<void> {
  await withTransaction(ctx, async (trx) => {
    const marked = await trx('campaignBatches').where({ storeId, campaignId, batch }).whereNull('doneAt').update({ doneAt: trx.fn.now() });
    if (!marked) return;
    const [row] = await trx('campaigns')
      .where({ storeId, id: campaignId })
      .update({ batchesDone: trx.raw('batches_done + 1'), updatedAt: trx.fn.now() })
      .returning(['batchesDone', 'batchesTotal', 'status', 'storeId']);
    if (row.batchesDone >= row.batchesTotal && row.status === 'sending') {
      const sent = await trx('campaigns').where({ storeId, id: campaignId, status: 'sending' }).update({ status: 'sent', completedAt: trx.fn.now() });
      if (sent) await reactInTransaction(ctx, trx, [{ type: 'campaign.sent', storeId: row.storeId, campaignId }]);
    }
  });
}

/** A start job that gave up for good: the campaign shows `failed` with the reason. */
export async function failCampaign(ctx: AppContext, campaignId: string, reason: string): Promise<void> {
  const storeId = await campaignStore(ctx, campaignId);
  if (!storeId) return;
  await ctx
    .db('campaigns')
    .where({ storeId, id: campaignId })
    .whereIn('status', ['scheduled', 'sending'])
    .update({ status: 'failed', error: reason.slice(0, 2000), completedAt: ctx.db.fn.now(), updatedAt: ctx.db.fn.now() });
}

/** The store of a campaign a job names by id only (knex leaves a comment off an UPDATE, so the marked read is its own statement). */
async function campaignStore(ctx: AppContext, campaignId: string): Promise<string | undefined> {
  const row = (await ctx.db('campaigns').comment('cross-store: campaign job by id').where({ id: campaignId }).first('storeId')) as { storeId: string } | undefined;
  return row?.storeId;
}
