import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../context.js';

export interface ClaimedRecipient {
  customerId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  status: 'sending' | 'skipped';
}

/** Where a batch run's recipients lie: customer ids in [from, to) (`to` null for the last batch). */
type Range = [string, string | null];

const inRange = `store_id = ? and campaign_id = ? and customer_id >= ? and (?::uuid is null or customer_id < ?::uuid)`;

/**
 * One batch run's claims on its recipients (pending → sending). Each claim carries the run's token and
 * expires `claimTimeoutMs` after it was taken or last renewed; the run renews its claims every quarter
 * of that while it lives. A run that dies (SIGKILL, OOM, a lost machine) stops renewing: its claims
 * lapse and the batch's next run puts those recipients back to `pending` and sends them.
 *
 * Never sent twice: a message the SMTP server accepted is recorded `sent` right after, before its send
 * counts as done (see sent-records), and a run starts a send only while at least a quarter of the timeout is left on its
 * claim (measured on this process's monotonic clock from before the claiming statement, so the
 * database's expiry is never earlier). A run that cannot renew in time stops sending and gives its
 * unsent claims back; it never resumes under a claim that may have lapsed. What stays open is the
 * moment between the server's 250 and that write's commit: a worker killed exactly then may see that
 * recipient sent once more (with the same Message-ID).
 */
export class RecipientClaims {
  readonly token = randomUUID();
  private validUntil = 0;
  private lapsed = false;
  /** A claim statement in flight: a renewal now might not see its rows, so it must not vouch for them. */
  private claiming = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ctx: AppContext,
    private readonly storeId: string,
    private readonly campaignId: string,
    private readonly range: Range,
    private readonly timeoutMs = ctx.config.marketing.claimTimeoutMs
  ) {
    this.timer = setInterval(() => void this.renew(), timeoutMs / 4);
    this.timer.unref();
  }

  private get rangeBindings() {
    return [this.storeId, this.campaignId, this.range[0], this.range[1], this.range[1]];
  }

  /**
   * Claims the next chunk of pending recipients: `sending` when still subscribed and not suppressed,
   * `skipped` otherwise (terminal, with the reason).
   */
  async claimChunk(storeId: string, exclude: string[], limit: number): Promise<ClaimedRecipient[]> {
    const asked = performance.now();
    this.claiming = true;
    try {
      const result = await this.ctx.db.raw(
        `with picked as (
           select r2.customer_id from campaign_recipients r2
            where r2.store_id = ? and r2.campaign_id = ? and r2.customer_id >= ? and (?::uuid is null or r2.customer_id < ?::uuid)
              and r2.status = 'pending' and r2.customer_id <> all(?::uuid[])
            order by r2.customer_id
            limit ${Number(limit)}
            for update skip locked
         ), decided as (
           select p.customer_id, cu.email, cu.first_name, cu.last_name,
                  case when cu.email_marketing is distinct from 'subscribed' or s.email is not null then 'skipped' else 'sending' end as next_status,
                  s.email is not null as is_suppressed,
                  case when cu.id is null then 'customer deleted'
                       when cu.email_marketing <> 'subscribed' then 'unsubscribed since the snapshot'
                       when s.email is not null then 'address suppressed' end as reason
             from picked p
             left join customers cu on cu.id = p.customer_id and cu.store_id = ?
             left join marketing_suppressions s on s.store_id = ? and s.email = lower(cu.email)
         )
         update campaign_recipients r
            set status = d.next_status, suppressed = d.is_suppressed, error = d.reason,
                attempts = r.attempts + case when d.next_status = 'sending' then 1 else 0 end,
                claim_token = ?, claimed_at = now(), claim_expires_at = now() + ? * interval '1 millisecond'
           from decided d
          where r.store_id = ? and r.campaign_id = ? and r.customer_id = d.customer_id
          returning r.customer_id, d.email, d.first_name, d.last_name, r.status`,
        [...this.rangeBindings, exclude, storeId, storeId, this.token, this.timeoutMs, this.storeId, this.campaignId]
      );
      if (result.rows.length && !this.lapsed) this.validUntil = asked + this.timeoutMs;
      return result.rows as ClaimedRecipient[];
    } finally {
      this.claiming = false;
    }
  }

  /**
   * Whether a send may start now: the claim has at least a quarter of the timeout left, so the send
   * and its record finish while it still holds. Once false it stays false for this run.
   */
  canStartSend(): boolean {
    if (!this.lapsed && performance.now() + this.timeoutMs / 4 >= this.validUntil) this.lapsed = true;
    return !this.lapsed;
  }

  /** Extends this run's live claims; a claim already expired is not revived (another run may take it). */
  private async renew(): Promise<void> {
    if (this.lapsed || this.claiming) return;
    const asked = performance.now();
    try {
      await this.ctx.db.raw(
        `update campaign_recipients set claim_expires_at = now() + ? * interval '1 millisecond'
          where ${inRange} and status = 'sending' and claim_token = ? and claim_expires_at > now()`,
        [this.timeoutMs, ...this.rangeBindings, this.token]
      );
      if (!this.lapsed) this.validUntil = asked + this.timeoutMs;
    } catch (error) {
      this.ctx.log.warn({ campaignId: this.campaignId, err: { message: (error as Error).message } }, 'campaign claims not renewed');
    }
  }

  /** Gives back claimed recipients this run did not send (its claim lapsed first): pending again at once. */
  async release(customerIds: string[]): Promise<void> {
    if (!customerIds.length) return;
    await this.ctx.db.raw(
      `update campaign_recipients set status = 'pending', claim_token = null, claim_expires_at = null
        where store_id = ? and campaign_id = ? and customer_id = any(?::uuid[]) and status = 'sending' and claim_token = ?`,
      [this.storeId, this.campaignId, customerIds, this.token]
    );
  }

  /**
   * Settles claims that other runs of this batch left behind. Expired ones were held by a run that
   * died: back to `pending` (`cancelled` when the campaign stopped). A claim without an expiry was taken
   * before claims expired and may have been accepted by the SMTP server unrecorded: failed, as then.
   * Answers how many were settled and, when live claims of other runs remain, how long until the
   * first of them expires.
   */
  async settleAbandoned(to: 'pending' | 'cancelled'): Promise<{ settled: number; nextExpiryMs: number | null }> {
    const settled = await this.ctx.db.raw(
      `update campaign_recipients
          set status = case when claim_expires_at is null then 'failed' else ? end,
              error = case when claim_expires_at is null then 'interrupted while sending; not retried so nobody gets it twice'
                           when ? = 'cancelled' then 'campaign stopped before this recipient''s turn'
                           else 'claim expired: the worker sending it stopped' end,
              claim_token = null, claim_expires_at = null
        where ${inRange} and status = 'sending' and (claim_expires_at is null or claim_expires_at <= now())`,
      [to, to, ...this.rangeBindings]
    );
    const live = await this.ctx.db.raw(
      `select ceil(extract(epoch from min(claim_expires_at) - now()) * 1000)::int as wait_ms
         from campaign_recipients where ${inRange} and status = 'sending'`,
      this.rangeBindings
    );
    const waitMs = live.rows[0]?.waitMs as number | null;
    return { settled: settled.rowCount ?? 0, nextExpiryMs: waitMs === null || waitMs === undefined ? null : Math.max(0, waitMs) };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
