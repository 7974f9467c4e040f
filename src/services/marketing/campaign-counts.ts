import type { Knex } from 'knex';

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
 * failure suppressed it. An unsubscribe counts for the last campaign the customer received before it.
 */
export async function campaignCounts(db: Knex, storeId: string, campaignIds: string[]): Promise<Map<string, CampaignCounts>> {
  const counts = new Map(campaignIds.map((id) => [id, empty()]));
  if (!campaignIds.length) return counts;
  const [byStatus, unsubscribes, clicks] = await Promise.all([
    db.raw(
      `select campaign_id, status, count(*)::int as n, count(*) filter (where suppressed)::int as suppressed
         from campaign_recipients where campaign_id = any(?::uuid[]) group by campaign_id, status`,
      [campaignIds]
    ),
    db.raw(
      `select r.campaign_id, count(*)::int as n
         from campaign_recipients r
         join customers cu on cu.id = r.customer_id
        where r.campaign_id = any(?::uuid[]) and r.status = 'sent'
          and cu.email_marketing = 'unsubscribed' and cu.email_marketing_updated_at >= r.sent_at
          and not exists (
            select 1 from campaigns k
              join campaign_recipients r2 on r2.campaign_id = k.id and r2.customer_id = r.customer_id
             where k.store_id = ? and k.id <> r.campaign_id and r2.status = 'sent'
               and r2.sent_at > r.sent_at and r2.sent_at <= cu.email_marketing_updated_at)
        group by r.campaign_id`,
      [campaignIds, storeId]
    ),
    db.raw(`select campaign_id, count(*)::int as n from campaign_clicks where campaign_id = any(?::uuid[]) group by campaign_id`, [campaignIds])
  ]);
  for (const row of byStatus.rows) {
    const c = counts.get(row.campaign_id)!;
    if (row.status === 'sending') c.pending += row.n;
    else (c as unknown as Record<string, number>)[row.status] += row.n;
    c.suppressed += row.suppressed;
  }
  for (const row of unsubscribes.rows) counts.get(row.campaign_id)!.unsubscribes = row.n;
  for (const row of clicks.rows) counts.get(row.campaign_id)!.clicks = row.n;
  return counts;
}
