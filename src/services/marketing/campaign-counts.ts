import { readTogether, type Sql, type Transaction } from '../../db/transaction.js';

export interface CampaignCounts {
  sent: number;
  failed: number;
  skipped: number;
  cancelled: number;
  pending: number;
  suppressed: number;
  unsubscribes: number;
  clicks: number;
}

const empty = (): CampaignCounts => ({ sent: 0, failed: 0, skipped: 0, cancelled: 0, pending: 0, suppressed: 0, unsubscribes: 0, clicks: 0 });

/**
 * Exact counts for campaigns, straight from the recipient rows (so they are right mid-send too).
 * `suppressed`: recipients not sent because the address is suppressed, plus those whose permanent
 * failure suppressed it. `unsubscribes`: recipients who unsubscribed through this campaign's link.
 */
export async function campaignCounts(db: Sql, storeId: string, campaignIds: string[]): Promise<Map<string, CampaignCounts>> {
  const counts = new Map(campaignIds.map((id) => [id, empty()]));
  if (!campaignIds.length) return counts;
  const [byStatus, clicks] = await readTogether(db, [
    () => db.raw(
      `select campaign_id, status, count(*)::int as n, count(*) filter (where suppressed)::int as suppressed,
              count(unsubscribed_at)::int as unsubscribes
         from campaign_recipients where store_id = ? and campaign_id = any(?::uuid[]) group by campaign_id, status`,
      [storeId, campaignIds]
    ),
    () => db.raw(`select campaign_id, count(*)::int as n from campaign_clicks where store_id = ? and campaign_id = any(?::uuid[]) group by campaign_id`, [storeId, campaignIds])
  ]);
  for (const row of byStatus.rows) {
    const c = counts.get(row.campaignId)!;
    if (row.status === 'sending') c.pending += row.n;
    else (c as unknown as Record<string, number>)[row.status] += row.n;
    c.suppressed += row.suppressed;
    c.unsubscribes += row.unsubscribes;
  }
  for (const row of clicks.rows) counts.get(row.campaignId)!.clicks = row.n;
  return counts;
}

/** Credits a campaign with its recipient's unsubscribe: set once, so a repeat through the same link counts once. */
export async function recordCampaignUnsubscribe(trx: Transaction, storeId: string, customerId: string, campaignId: string): Promise<void> {
  await trx('campaignRecipients').where({ storeId, campaignId, customerId }).whereNull('unsubscribedAt').update({ unsubscribedAt: trx.fn.now() });
}
