import type { AppContext } from '../../context.js';
import { withTransaction } from '../../platform/with-transaction.js';

/**
 * The campaign's content cannot be rendered (a refused tag, a limit, a syntax error in content saved
 * before the checks): it would fail for every recipient alike, so the campaign fails as a whole with
 * the reason, and every recipient not sent yet fails with it. Batches still running stop at their
 * next chunk, as after a cancel.
 */
export async function failCampaignContent(ctx: AppContext, storeId: string, campaignId: string, reason: string): Promise<void> {
  await withTransaction(ctx, async (trx) => {
    const failed = await trx('campaigns')
      .where({ storeId, id: campaignId, status: 'sending' })
      .update({ status: 'failed', error: reason.slice(0, 2000), completedAt: trx.fn.now(), updatedAt: trx.fn.now() });
    if (!failed) return;
    await trx('campaignRecipients').where({ storeId, campaignId, status: 'pending' }).update({ status: 'failed', error: reason.slice(0, 1000) });
  });
}
