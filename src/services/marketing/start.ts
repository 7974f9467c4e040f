import type { AppContext } from '../../context.js';
import { audienceCondition, type Audience } from './audience.js';
import { enqueueBatches } from './scheduling.js';

/**
 * The campaign job: moves the campaign to `sending`, snapshots its audience into
 * `campaign_recipients` with one INSERT … SELECT (a batch is a range of recipient ids), and fans the
 * batches out. Each step is idempotent, so a retried or repeated start resumes where it stopped.
 */
export async function startCampaign(ctx: AppContext, campaignId: string) {
  const claimed = await ctx
    .db('campaigns')
    .where({ id: campaignId })
    .whereIn('status', ['scheduled', 'sending'])
    .update({ status: 'sending', startedAt: ctx.db.raw('coalesce(started_at, now())'), updatedAt: ctx.db.fn.now() })
    .returning(['id', 'storeId', 'audience', 'snapshotAt']);
  const campaign = claimed[0];
  if (!campaign) return { started: false };

  if (!campaign.snapshotAt) await snapshotRecipients(ctx, campaignId, campaign.storeId, campaign.audience as Audience);
  const pending = (await ctx.db('campaignBatches').where({ campaignId }).whereNull('doneAt').orderBy('batch').pluck('batch')) as number[];
  await enqueueBatches(ctx, campaignId, pending);
  return { started: true, batches: pending.length };
}

async function snapshotRecipients(ctx: AppContext, campaignId: string, storeId: string, audience: Audience) {
  const batchSize = ctx.config.marketing.batchSize;
  await ctx.db.transaction(async (trx) => {
    const locked = await trx('campaigns').where({ id: campaignId }).forUpdate().first('snapshotAt', 'status');
    if (locked.snapshotAt || locked.status !== 'sending') return;
    const where = await audienceCondition(trx, storeId, audience);
    const inserted = await trx.raw(
      `insert into campaign_recipients (campaign_id, customer_id, email, first_name, last_name)
       select ?, c.id, c.email, c.first_name, c.last_name from customers c where ${where.sql}`,
      [campaignId, ...where.bindings]
    );
    const recipients = inserted.rowCount as number;
    // Ids come from one sequence; a concurrent snapshot may interleave, which only thins some batches.
    const range = await trx.raw('select min(id) as first, max(id) as last from campaign_recipients where campaign_id = ?', [campaignId]);
    const first = recipients ? Number(range.rows[0].first) : null;
    const batches = first === null ? 0 : Math.ceil((Number(range.rows[0].last) - first + 1) / batchSize);
    if (batches) await trx.raw('insert into campaign_batches (campaign_id, batch) select ?, generate_series(0, ? - 1)', [campaignId, batches]);
    await trx('campaigns')
      .where({ id: campaignId })
      .update({
        recipients,
        firstRecipientId: first,
        batchSize,
        batchesTotal: batches,
        snapshotAt: trx.raw('clock_timestamp()'),
        updatedAt: trx.fn.now(),
        // Nobody to send to: done at once.
        ...(batches === 0 ? { status: 'sent', completedAt: trx.fn.now() } : {})
      });
  });
}

/** The recipient ids of one batch: [from, to). */
export function batchRange(campaign: { firstRecipientId: string | number | null; batchSize: number }, batch: number): [number, number] {
  const first = Number(campaign.firstRecipientId ?? 0);
  return [first + batch * campaign.batchSize, first + (batch + 1) * campaign.batchSize];
}

/** Marks one batch done (once), and the campaign sent when it was the last one. */
export async function completeBatch(ctx: AppContext, campaignId: string, batch: number): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    const marked = await trx('campaignBatches').where({ campaignId, batch }).whereNull('doneAt').update({ doneAt: trx.fn.now() });
    if (!marked) return;
    const [row] = await trx('campaigns')
      .where({ id: campaignId })
      .update({ batchesDone: trx.raw('batches_done + 1'), updatedAt: trx.fn.now() })
      .returning(['batchesDone', 'batchesTotal', 'status']);
    if (row.batchesDone >= row.batchesTotal && row.status === 'sending') {
      await trx('campaigns').where({ id: campaignId, status: 'sending' }).update({ status: 'sent', completedAt: trx.fn.now() });
    }
  });
}

/** A start job that gave up for good: the campaign shows `failed` with the reason. */
export async function failCampaign(ctx: AppContext, campaignId: string, reason: string): Promise<void> {
  await ctx
    .db('campaigns')
    .where({ id: campaignId })
    .whereIn('status', ['scheduled', 'sending'])
    .update({ status: 'failed', error: reason.slice(0, 2000), completedAt: ctx.db.fn.now(), updatedAt: ctx.db.fn.now() });
}
