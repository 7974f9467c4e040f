import type { AppContext } from '../../context.js';
import { stripeEventJob } from '../../jobs/stripe-event.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import { withTransaction } from '../../platform/with-transaction.js';

/** A stored event still pending after this long has lost its job (Redis flushed, job removed). */
const STALE_AFTER_MS = 10 * 60_000;

/**
 * Webhook-event reconciliation: Stripe events stored by the receiver but never processed are
 * queued again (processing is idempotent: a processed event is skipped). Each pass uses its own
 * job id, since the lost job's id may still be held by a failed BullMQ job.
 */
export async function reconcileStripeEvents(ctx: AppContext, options: { limit?: number } = {}) {
  const cutoff = new Date(Date.now() - STALE_AFTER_MS);
  const pass = Date.now().toString(36);
  return withTransaction(ctx, async (trx) => {
    const stale: string[] = await trx('stripeEvents')
      .where({ status: 'pending' })
      .where('receivedAt', '<', cutoff)
      .orderBy('receivedAt')
      .limit(options.limit ?? 500)
      .forUpdate()
      .skipLocked()
      .pluck('id');
    for (const eventId of stale) {
      await enqueueJob(trx, stripeEventJob, { eventId }, { jobId: `stripe-event-${eventId}-replay-${pass}`.replace(/:/g, '-') });
    }
    return { replayed: stale.length };
  });
}
