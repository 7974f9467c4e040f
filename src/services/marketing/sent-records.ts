import type { AppContext } from '../../context.js';

interface Waiting {
  storeId: string;
  campaignId: string;
  customerId: string;
  done: (error?: unknown) => void;
}

/**
 * Writes `sent` for accepted campaign messages, one process-wide group commit at a time: a message
 * accepted while a write is in flight goes out with the others accepted meanwhile in the next write.
 * Each caller's promise settles only once the write holding its recipient committed, so a send is
 * never done before its record (what keeps a crash from sending it again), and at high rates one
 * commit (one WAL flush) covers many messages instead of one each. A recipient waits at most for the
 * write in flight and its own.
 */
class SentLog {
  private queue: Waiting[] = [];
  private writing = false;

  constructor(private readonly ctx: AppContext) {}

  record(storeId: string, campaignId: string, customerId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ storeId, campaignId, customerId, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length) {
      const group = this.queue.splice(0);
      try {
        await writeSent(this.ctx, group);
        for (const waiting of group) waiting.done();
      } catch (error) {
        for (const waiting of group) waiting.done(error);
      }
    }
    this.writing = false;
  }
}

const logs = new WeakMap<AppContext, SentLog>();

/** Records one accepted message `sent`; resolves once committed (grouped with others accepted meanwhile). */
export function recordSent(ctx: AppContext, storeId: string, campaignId: string, customerId: string): Promise<void> {
  let log = logs.get(ctx);
  if (!log) logs.set(ctx, (log = new SentLog(ctx)));
  return log.record(storeId, campaignId, customerId);
}

/**
 * Marks recipients `sent`. Not conditional on the claim: the message went out, whoever holds the
 * row now. One group may hold recipients of several stores' campaigns: on Citus, a multi-shard
 * update (docs/scaling.md).
 */
export async function writeSent(ctx: AppContext, recipients: Array<{ storeId: string; campaignId: string; customerId: string }>): Promise<void> {
  if (!recipients.length) return;
  await ctx.db.raw(
    `update campaign_recipients r set status = 'sent', sent_at = now(), error = null
       from unnest(?::uuid[], ?::uuid[], ?::uuid[]) as s(store_id, campaign_id, customer_id)
      where r.store_id = s.store_id and r.campaign_id = s.campaign_id and r.customer_id = s.customer_id`,
    [recipients.map((r) => r.storeId), recipients.map((r) => r.campaignId), recipients.map((r) => r.customerId)]
  );
}
