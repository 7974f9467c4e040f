import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { webhookDeliveryJob } from '../../jobs/webhook-delivery.js';
import { enqueueEmail } from '../email/index.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import { DELIVERY_TIMEOUT_MS, postWebhook, type PostResult } from './http-post.js';
import { disableAfterMs, nextRetryDelayMs, retryWindowMs } from './retry-schedule.js';
import { signatureHeader } from './signature.js';
import { signingSecrets, type SubscriptionRow } from './subscriptions.js';
import { withTransaction } from '../../platform/with-transaction.js';

/** How long a claimed attempt is held before another worker may take it over (its worker died). */
const CLAIM_MS = DELIVERY_TIMEOUT_MS + 5_000;
/** How soon an attempt that found its endpoint at the in-flight cap tries again (plus jitter). */
const BUSY_DELAY_MS = 500;

export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'deferred' | 'skipped';

export class DeliveryClaimedElsewhere extends Error {}

interface DeliveryView {
  id: string;
  status: string;
  subscriptionId: string;
  storeId: string;
  eventId: string;
  topic: string;
  seq: string;
  data: unknown;
  eventCreatedAt: Date;
}

/** The exact bytes sent for an event, the same on every attempt and redelivery. */
export function eventBody(view: Pick<DeliveryView, 'eventId' | 'topic' | 'eventCreatedAt' | 'storeId' | 'data' | 'seq'>): string {
  return JSON.stringify({ id: view.eventId, topic: view.topic, createdAt: view.eventCreatedAt.toISOString(), storeId: view.storeId, data: view.data, version: Number(view.seq) });
}

/**
 * Per-endpoint in-flight cap, shared by every worker (the backends' slot store, Redis or
 * PostgreSQL: claims older than CLAIM_MS lapse, so a dead worker's slot frees itself). Store away: no cap.
 */
async function takeSlot(ctx: AppContext, subscriptionId: string, deliveryId: string): Promise<boolean> {
  try {
    return await ctx.backends.slots.take(`webhook-inflight:${subscriptionId}`, deliveryId, ctx.config.webhooks.endpointConcurrency, CLAIM_MS);
  } catch {
    return true;
  }
}

async function releaseSlot(ctx: AppContext, subscriptionId: string, deliveryId: string): Promise<void> {
  await ctx.backends.slots.release(`webhook-inflight:${subscriptionId}`, deliveryId).catch(() => undefined);
}

/**
 * One attempt at a delivery: claim it (one attempt at a time, whoever runs the job), post it
 * signed, and record the outcome with the next attempt's job in one transaction. 2xx succeeds;
 * 4xx other than 408/429 is final; anything else retries on the schedule until 24 h (scaled) after
 * the first attempt. A job for a delivery already done, or not yet due, does nothing.
 */
export async function deliverWebhook(ctx: AppContext, deliveryId: string, signal?: AbortSignal, knownSubscriptionId?: string): Promise<DeliveryOutcome> {
  // A job that names its subscription takes the endpoint's slot first: an attempt that must wait
  // its turn costs no database read (one endpoint with a deep backlog defers most attempts).
  let slot: string | null = null;
  if (knownSubscriptionId) {
    if (!(await takeSlot(ctx, knownSubscriptionId, deliveryId))) return defer(ctx, deliveryId, knownSubscriptionId);
    slot = knownSubscriptionId;
  }
  try {
    const view: (DeliveryView & SubscriptionRow & { nextRetryAt: Date | null; lockedUntil: Date | null }) | undefined = await ctx
      .db('webhookDeliveries as d')
      .comment('cross-store: webhook delivery job by id')
      .join('webhookSubscriptions as s', (on) => on.on('s.storeId', 'd.storeId').andOn('s.id', 'd.subscriptionId'))
      .join('webhookEvents as e', (on) => on.on('e.storeId', 'd.storeId').andOn('e.id', 'd.eventId'))
      // The job carries the delivery id only: this entry lookup spans stores (docs/scaling.md).
      .where('d.id', deliveryId)
      .first(
        'd.id', 'd.status', 'd.subscriptionId', 'd.storeId', 'd.eventId', 'd.nextRetryAt', 'd.lockedUntil',
        's.url', 's.enabled', 's.secretSealed', 's.previousSecretSealed', 's.previousSecretExpiresAt',
        'e.topic', 'e.seq', 'e.data', 'e.createdAt as eventCreatedAt'
      );
    if (!view || view.status === 'succeeded' || view.status === 'failed') return 'skipped';
    if (view.status === 'pending' && view.nextRetryAt && view.nextRetryAt.getTime() > Date.now() + 1_000) return 'skipped';
    if (!view.enabled) {
      await ctx.db('webhookDeliveries').where({ storeId: view.storeId, id: deliveryId, status: 'pending' })
        .update({ status: 'failed', lastError: 'the subscription is disabled', completedAt: ctx.db.fn.now(), nextRetryAt: null, updatedAt: ctx.db.fn.now() });
      return 'failed';
    }
    if (!slot) {
      if (!(await takeSlot(ctx, view.subscriptionId, deliveryId))) return defer(ctx, deliveryId, view.subscriptionId);
      slot = view.subscriptionId;
    }
    const [claimed] = await ctx.db('webhookDeliveries')
      .where({ storeId: view.storeId, id: deliveryId })
      .where((q) => q.where({ status: 'pending' }).orWhere((q2) => q2.where({ status: 'delivering' }).where('lockedUntil', '<', ctx.db.fn.now())))
      .update({
        status: 'delivering',
        attempts: ctx.db.raw('attempts + 1'),
        lockedUntil: ctx.db.raw(`now() + interval '${CLAIM_MS} milliseconds'`),
        firstAttemptAt: ctx.db.raw('coalesce(first_attempt_at, now())'),
        updatedAt: ctx.db.fn.now()
      })
      .returning(['attempts', 'firstAttemptAt']);
    if (!claimed) {
      // Another worker holds a live claim: BullMQ retries this job after the claim may have lapsed.
      if (view.status === 'delivering') throw new DeliveryClaimedElsewhere(`delivery ${deliveryId} is being attempted elsewhere`);
      return 'skipped';
    }
    const body = eventBody(view);
    const result = await postWebhook(
      view.url,
      body,
      {
        'Shopwright-Signature': signatureHeader(signingSecrets(ctx, view), body),
        'Shopwright-Event-Id': view.eventId,
        'Shopwright-Topic': view.topic,
        'Shopwright-Delivery-Id': deliveryId
      },
      ctx.config.webhooks.allowPrivateHosts,
      signal
    );
    return await recordOutcome(ctx, view, claimed.attempts as number, claimed.firstAttemptAt as Date, result);
  } finally {
    if (slot) await releaseSlot(ctx, slot, deliveryId);
  }
}

/**
 * At the endpoint's cap: this attempt waits its turn as a new job, so the worker slot goes to
 * another endpoint. Straight into the queue, not through the outbox: nothing commits with it (the
 * delivery row is already there), a deferral costs no database write, and if the add fails this
 * job fails and BullMQ runs it again (the sweeper covers a job lost with Redis).
 */
async function defer(ctx: AppContext, deliveryId: string, subscriptionId: string): Promise<DeliveryOutcome> {
  const delay = Math.round(BUSY_DELAY_MS + Math.random() * BUSY_DELAY_MS);
  await ctx.queues.get(webhookDeliveryJob.queue).add(webhookDeliveryJob.name, { deliveryId, subscriptionId }, { ...webhookDeliveryJob.options, delay });
  return 'deferred';
}

const isSuccess = (code: number | null) => code !== null && code >= 200 && code < 300;
const isFinalRefusal = (code: number | null) => code !== null && code >= 400 && code < 500 && code !== 408 && code !== 429;

async function recordOutcome(ctx: AppContext, view: DeliveryView, attempts: number, firstAttemptAt: Date, result: PostResult): Promise<DeliveryOutcome> {
  const base = ctx.config.webhooks.retryBaseMs;
  const outcome = {
    lastStatusCode: result.statusCode,
    lastDurationMs: result.durationMs,
    lastError: result.error ?? (isSuccess(result.statusCode) ? null : `answered ${result.statusCode}`),
    responseBody: result.body,
    lockedUntil: null,
    updatedAt: ctx.db.fn.now()
  };
  if (isSuccess(result.statusCode)) {
    // The common case in one statement (no transaction round trips): the delivery done, the endpoint no longer failing.
    await ctx.db.raw(
      `with d as (
         update webhook_deliveries set status = 'succeeded', last_status_code = ?, last_duration_ms = ?, last_error = null, response_body = ?,
                locked_until = null, next_retry_at = null, completed_at = now(), updated_at = now()
          where store_id = ? and id = ? returning 1
       ), s as (
         update webhook_subscriptions set failing_since = null where store_id = ? and id = ? and failing_since is not null returning 1
       )
       select (select count(*) from d) as deliveries, (select count(*) from s) as endpoints`,
      [result.statusCode, result.durationMs, result.body, view.storeId, view.id, view.storeId, view.subscriptionId]
    );
    return 'succeeded';
  }
  return withTransaction(ctx, async (trx) => {
    const delay = nextRetryDelayMs(base, attempts);
    const final = isFinalRefusal(result.statusCode) || Date.now() + delay - firstAttemptAt.getTime() > retryWindowMs(base);
    if (final) {
      await trx('webhookDeliveries').where({ storeId: view.storeId, id: view.id }).update({ ...outcome, status: 'failed', nextRetryAt: null, completedAt: trx.fn.now() });
    } else {
      const runAt = new Date(Date.now() + delay);
      await trx('webhookDeliveries').where({ storeId: view.storeId, id: view.id }).update({ ...outcome, status: 'pending', nextRetryAt: runAt });
      await enqueueJob(trx as unknown as Sql, webhookDeliveryJob, { deliveryId: view.id, subscriptionId: view.subscriptionId }, { runAt, jobId: `webhook-delivery-${view.id}-${attempts + 1}-${randomUUID().slice(0, 8)}` });
    }
    await noteEndpointFailure(ctx, trx as unknown as Sql, view);
    return final ? 'failed' : 'retrying';
  });
}

/** An endpoint failing for 3 days (scaled like the retries) is disabled, and the store's owners are told. */
async function noteEndpointFailure(ctx: AppContext, trx: Sql, view: DeliveryView): Promise<void> {
  const [row] = await trx('webhookSubscriptions')
    .where({ storeId: view.storeId, id: view.subscriptionId })
    .update({ failingSince: trx.raw('coalesce(failing_since, now())') })
    .returning(['failingSince', 'enabled', 'url']);
  if (!row?.enabled || Date.now() - new Date(row.failingSince).getTime() < disableAfterMs(ctx.config.webhooks.retryBaseMs)) return;
  const [disabled] = await trx('webhookSubscriptions')
    .where({ storeId: view.storeId, id: view.subscriptionId, enabled: true })
    .update({ enabled: false, disabledReason: 'failing for 3 days', updatedAt: trx.fn.now() })
    .returning('id');
  if (!disabled) return;
  const owners: Array<{ email: string }> = await trx('memberships as m').join('users as u', 'u.id', 'm.userId').where({ 'm.storeId': view.storeId, 'm.role': 'owner' }).select('u.email');
  const text = `Deliveries to your webhook ${row.url} have failed for 3 days, so it has been disabled. Fix the endpoint, then enable it again (PATCH /admin/store/webhooks/${view.subscriptionId} { "enabled": true }); failed deliveries can be redelivered from its delivery log.`;
  for (const owner of owners) {
    await enqueueEmail(ctx, { storeId: view.storeId, to: owner.email, content: { subject: 'A webhook endpoint was disabled', text, html: `<p>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>` } }, { trx });
  }
}
