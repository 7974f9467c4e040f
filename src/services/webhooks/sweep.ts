import type { AppContext } from '../../context.js';
import { webhookDeliveryJob } from '../../jobs/webhook-delivery.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import { DELIVERY_TIMEOUT_MS } from './http-post.js';
import { retryWindowMs } from './retry-schedule.js';

/**
 * How long past due a delivery must be before it counts as lost. Longer than any BullMQ re-run of a
 * live job (a claim held elsewhere, an endpoint at its cap) takes, so a healthy delivery is rarely
 * swept; one that is gets a second job that finds it done (or not yet due) and does nothing.
 */
const OVERDUE_MS = 10 * 60_000;
const BATCH = 500;

/**
 * Deliveries whose job is gone: `pending` past their due time (the next retry, or creation for a
 * first attempt) or `delivering` under a claim that lapsed, by `overdueMs`, with no job waiting in
 * the outbox (alone or in a batch). Each gets a new job (one id per delivery and attempt count, so repeated sweeps add it
 * once), unless its retry window (24 h, scaled) is over: then it is failed, as a last attempt would.
 */
export async function sweepStuckDeliveries(ctx: AppContext, options: { overdueMs?: number } = {}): Promise<{ requeued: number; failed: number }> {
  const overdue = `${options.overdueMs ?? OVERDUE_MS} milliseconds`;
  const window = `${retryWindowMs(ctx.config.webhooks.retryBaseMs)} milliseconds`;
  // Every store's stuck deliveries: a platform sweep, across stores (docs/scaling.md).
  const lost: Array<{ id: string; storeId: string; subscriptionId: string; attempts: number; expired: boolean }> = (
    await ctx.db.raw(
      `/* cross-store: stuck webhook deliveries sweep */ select d.id, d.store_id, d.subscription_id, d.attempts, coalesce(d.first_attempt_at, d.created_at) < now() - ?::interval as expired
         from webhook_deliveries d
        where d.status in ('pending', 'delivering')
          and coalesce(d.next_retry_at, d.created_at) < now() - ?::interval
          and (d.status = 'pending' or d.locked_until < now() - ?::interval)
          and not exists (select 1 from outbox o where o.name = ? and (o.payload->>'deliveryId' = d.id::text
                          or o.payload->'deliveries' @> jsonb_build_array(jsonb_build_object('deliveryId', d.id::text))))
        order by coalesce(d.next_retry_at, d.created_at)
        limit ?`,
      [window, overdue, `${DELIVERY_TIMEOUT_MS} milliseconds`, webhookDeliveryJob.name, BATCH]
    )
  ).rows;
  let requeued = 0;
  let failed = 0;
  for (const delivery of lost) {
    if (delivery.expired) {
      const done = await ctx.db('webhookDeliveries')
        .where({ storeId: delivery.storeId, id: delivery.id })
        .whereIn('status', ['pending', 'delivering'])
        .update({ status: 'failed', lastError: 'its delivery job was lost and the retry window is over', nextRetryAt: null, lockedUntil: null, completedAt: ctx.db.fn.now(), updatedAt: ctx.db.fn.now() });
      failed += done;
    } else {
      await enqueueJob(ctx.db, webhookDeliveryJob, { deliveryId: delivery.id, subscriptionId: delivery.subscriptionId }, { jobId: `webhook-sweep-${delivery.id}-${delivery.attempts}` });
      requeued += 1;
    }
  }
  if (lost.length) ctx.log.info({ requeued, failed }, 'webhook deliveries swept');
  return { requeued, failed };
}
