import { randomUUID } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { webhookDeliveryJob, type DeliveryRef } from '../../jobs/webhook-delivery.js';
import { enqueueEmail } from '../email/index.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import { DELIVERY_TIMEOUT_MS, postWebhook, type PostResult } from './http-post.js';
import { disableAfterMs, nextRetryDelayMs, retryWindowMs } from './retry-schedule.js';
import { signatureHeader, standardWebhookHeaders } from './signature.js';
import { signingSecrets, type SubscriptionRow } from './subscriptions.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { destinationKey, hostOf, resolveDestination } from '../../platform/url-guard.js';
import { defineStatement, runStatement } from '../../db/prepared-statements.js';
import { Batched } from '../../db/batched.js';
import { SlotLeases, type Lease } from './slot-leases.js';

/** How long a claimed attempt is held before another worker may take it over (its worker died). */
const CLAIM_MS = DELIVERY_TIMEOUT_MS + 5_000;
/**
 * How soon an attempt that found its endpoint or destination at the in-flight cap tries again: 0.5 s,
 * doubling with each wait of that attempt up to 10 s (plus up to as much jitter), so a backlog
 * behind a slow host polls the slot store a few times a minute per delivery, not twice a second.
 */
const BUSY_DELAY_MS = 500;
const BUSY_MAX_DELAY_MS = 10_000;

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
 * In-flight caps shared by every worker (the backends' slot store, Redis or PostgreSQL: claims
 * older than CLAIM_MS lapse, so a dead worker's slot frees itself): per endpoint (subscription),
 * and per destination across all stores, so that no store, however many subscriptions it points at
 * one third party, and no number of stores together, puts more than WEBHOOK_HOST_CONCURRENCY
 * requests in flight at one host. Store away: no cap.
 */
const endpointSlot = (ctx: AppContext, subscriptionId: string) => ({ key: `webhook-inflight:${subscriptionId}`, limit: ctx.config.webhooks.endpointConcurrency, waitMs: ENDPOINT_WAIT_MS });
const destinationSlot = (ctx: AppContext, destination: string) => ({ key: `webhook-host:${destination}`, limit: ctx.config.webhooks.hostConcurrency });

/**
 * The slots this process holds in the store, handed from one attempt to the next (SlotLeases): a
 * slot unused for LINGER_MS goes back to the store.
 */
const LINGER_MS = 1_000;
const leasesOf = new WeakMap<AppContext, SlotLeases>();
function slotLeases(ctx: AppContext): SlotLeases {
  let leases = leasesOf.get(ctx);
  if (!leases) leasesOf.set(ctx, (leases = new SlotLeases(ctx.backends.slots, { claimMs: CLAIM_MS, lingerMs: LINGER_MS })));
  return leases;
}

/**
 * How long an attempt waits in the process for an endpoint slot this process holds, before it is
 * re-queued (at most twice the cap's number of attempts wait per endpoint: SlotLeases): a backlog
 * on one endpoint (a bulk write's events) keeps its slots busy instead of waiting out re-queue delays.
 */
const ENDPOINT_WAIT_MS = 2_000;

/** The slots this process kept for its next attempts, released to the store (its workers are closing). */
export async function releaseIdleWebhookSlots(ctx: AppContext): Promise<void> {
  await leasesOf.get(ctx)?.releaseIdle();
}

/** Takes a slot into `held`; false when the cap is full. */
async function takeSlot(ctx: AppContext, slot: { key: string; limit: number; waitMs?: number }, held: Lease[]): Promise<boolean> {
  const lease = await slotLeases(ctx).acquire(slot.key, slot.limit, { waitMs: slot.waitMs });
  if (lease) held.push(lease);
  return lease !== null;
}

/**
 * The destination slots of a delivery: its URL's host, then, for a host name, the address it
 * resolved to (names of one store or many that all resolve to one machine share that machine's
 * cap). Taken in that order, the name before the lookup, so an attempt that must wait costs no DNS
 * query. The resolution checks the addresses again, IP literals included (a socket to a literal
 * skips the lookup): the name may resolve elsewhere than when it was saved, and a URL saved under
 * older rules meets today's. Returns the addresses to connect to (or why there are none), or null
 * when a cap is full.
 */
async function takeDestination(ctx: AppContext, url: string, held: Lease[]): Promise<LookupAddress[] | Error | null> {
  const hostKey = destinationKey(hostOf(new URL(url)));
  if (!(await takeSlot(ctx, destinationSlot(ctx, hostKey), held))) return null;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveDestination(url, ctx.config.webhooks.allowPrivateHosts);
  } catch (error) {
    return error as Error;
  }
  const addressKey = destinationKey(addresses[0]!.address);
  if (addressKey === hostKey) return addresses;
  if (!(await takeSlot(ctx, destinationSlot(ctx, addressKey), held))) return null;
  return addresses;
}

type ViewRow = DeliveryView & SubscriptionRow & { nextRetryAt: Date | null; lockedUntil: Date | null };

/**
 * The bookkeeping of the attempts, one statement per batch of concurrent attempts (Batched):
 * a worker at concurrency 50 read, claimed and recorded each delivery alone, three statements and
 * their round trips per delivery, most of PostgreSQL's and much of the worker's CPU per delivery.
 * Each keeps its per-delivery meaning: a delivery's view, its claim (only while pending, or
 * delivering under a lapsed claim), its success.
 */
const READ = defineStatement(`/* cross-store: webhook delivery job by id */
  select d.id, d.status, d.subscription_id, d.store_id, d.event_id, d.next_retry_at, d.locked_until,
         s.url, s.enabled, s.secret_sealed, s.previous_secret_sealed, s.previous_secret_expires_at,
         e.topic, e.seq, e.data, e.created_at as event_created_at
    from webhook_deliveries d
    join webhook_subscriptions s on s.store_id = d.store_id and s.id = d.subscription_id
    join webhook_events e on e.store_id = d.store_id and e.id = d.event_id
   where d.id = any(:ids::uuid[])`);

const CLAIM = defineStatement(`
  update webhook_deliveries d
     set status = 'delivering', attempts = d.attempts + 1, locked_until = now() + :claim::interval,
         first_attempt_at = coalesce(d.first_attempt_at, now()), updated_at = now()
    from unnest(:storeIds::uuid[], :ids::uuid[]) as k(store_id, id)
   where d.store_id = k.store_id and d.id = k.id
     and (d.status = 'pending' or (d.status = 'delivering' and d.locked_until < now()))
  returning d.id, d.attempts, d.first_attempt_at`);

const SUCCEEDED = defineStatement(`
  with k as (
    select * from unnest(:storeIds::uuid[], :ids::uuid[], :subscriptionIds::uuid[], :codes::int[], :durations::int[], :bodies::text[])
      as k(store_id, id, subscription_id, status_code, duration_ms, body)
  ), d as (
    update webhook_deliveries d set status = 'succeeded', last_status_code = k.status_code, last_duration_ms = k.duration_ms, last_error = null,
           response_body = k.body, locked_until = null, next_retry_at = null, completed_at = now(), updated_at = now()
      from k where d.store_id = k.store_id and d.id = k.id returning 1
  ), s as (
    update webhook_subscriptions s set failing_since = null
      from (select distinct store_id, subscription_id from k) e
     where s.store_id = e.store_id and s.id = e.subscription_id and s.failing_since is not null returning 1
  )
  select (select count(*) from d) as deliveries, (select count(*) from s) as endpoints`);

interface Succeeded { storeId: string; id: string; subscriptionId: string; statusCode: number; durationMs: number; body: string | null }
interface Claimed { attempts: number; firstAttemptAt: Date }

function createBookkeeping(ctx: AppContext) {
  return {
    read: new Batched<string, ViewRow | undefined>(async (ids) => {
      const { rows } = await runStatement<ViewRow>(ctx.db, READ, { ids: [...new Set(ids)] });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id));
    }),
    claim: new Batched<{ storeId: string; id: string }, Claimed | undefined>(async (keys) => {
      const { rows } = await runStatement<Claimed & { id: string }>(ctx.db, CLAIM, { storeIds: keys.map((k) => k.storeId), ids: keys.map((k) => k.id), claim: `${CLAIM_MS} milliseconds` });
      // Two jobs of one delivery in one batch: the row is claimed once, so only the first is answered.
      const byId = new Map(rows.map((row) => [row.id, row]));
      return keys.map(({ id }) => {
        const row = byId.get(id);
        byId.delete(id);
        return row;
      });
    }),
    succeeded: new Batched<Succeeded, void>(async (rows) => {
      await runStatement(ctx.db, SUCCEEDED, {
        storeIds: rows.map((r) => r.storeId), ids: rows.map((r) => r.id), subscriptionIds: rows.map((r) => r.subscriptionId),
        codes: rows.map((r) => r.statusCode), durations: rows.map((r) => r.durationMs), bodies: rows.map((r) => r.body)
      });
      return rows.map(() => undefined);
    })
  };
}

const bookkeepingOf = new WeakMap<AppContext, ReturnType<typeof createBookkeeping>>();
function bookkeeping(ctx: AppContext) {
  let found = bookkeepingOf.get(ctx);
  if (!found) bookkeepingOf.set(ctx, (found = createBookkeeping(ctx)));
  return found;
}

/**
 * One attempt at a delivery: claim it (one attempt at a time, whoever runs the job), post it
 * signed, and record the outcome with the next attempt's job in one transaction. 2xx succeeds;
 * 4xx other than 408/429 is final; anything else retries on the schedule until 24 h (scaled) after
 * the first attempt. A job for a delivery already done, or not yet due, does nothing.
 */
export async function deliverWebhook(
  ctx: AppContext,
  deliveryId: string,
  signal?: AbortSignal,
  knownSubscriptionId?: string,
  deferrals = 0,
  /** A batch's collector of the attempts that must wait their turn: it re-queues them together (deliverWebhookBatch). */
  deferInto?: (delivery: DeliveryRef) => void
): Promise<DeliveryOutcome> {
  const defer = (subscriptionId: string): Promise<DeliveryOutcome> => {
    if (!deferInto) return deferAlone(ctx, deliveryId, subscriptionId, deferrals);
    deferInto({ deliveryId, subscriptionId });
    return Promise.resolve('deferred');
  };
  // A job that names its subscription takes the endpoint's slot first: an attempt that must wait
  // its turn costs no database read (one endpoint with a deep backlog defers most attempts).
  const held: Lease[] = [];
  try {
    if (knownSubscriptionId && !(await takeSlot(ctx, endpointSlot(ctx, knownSubscriptionId), held))) return defer(knownSubscriptionId);
    const view = await bookkeeping(ctx).read.call(deliveryId);
    if (!view || view.status === 'succeeded' || view.status === 'failed') return 'skipped';
    if (view.status === 'pending' && view.nextRetryAt && view.nextRetryAt.getTime() > Date.now() + 1_000) return 'skipped';
    if (!view.enabled) {
      await ctx.db('webhookDeliveries').where({ storeId: view.storeId, id: deliveryId, status: 'pending' })
        .update({ status: 'failed', lastError: 'the subscription is disabled', completedAt: ctx.db.fn.now(), nextRetryAt: null, updatedAt: ctx.db.fn.now() });
      return 'failed';
    }
    if (!held.length && !(await takeSlot(ctx, endpointSlot(ctx, view.subscriptionId), held))) return defer(view.subscriptionId);
    const destination = await takeDestination(ctx, view.url, held);
    if (!destination) return defer(view.subscriptionId);
    const claimed = await bookkeeping(ctx).claim.call({ storeId: view.storeId, id: deliveryId });
    if (!claimed) {
      // Another worker holds a live claim: BullMQ retries this job after the claim may have lapsed.
      if (view.status === 'delivering') throw new DeliveryClaimedElsewhere(`delivery ${deliveryId} is being attempted elsewhere`);
      return 'skipped';
    }
    const body = eventBody(view);
    const secrets = signingSecrets(ctx, view);
    const now = Date.now();
    // A host that does not resolve, or resolves to a refused address, is a failed attempt like a refused connection.
    const result: PostResult = destination instanceof Error
      ? { statusCode: null, durationMs: 0, body: null, error: destination.message }
      : await postWebhook(
          view.url,
          body,
          {
            ...standardWebhookHeaders(secrets, view.eventId, body, now),
            'Shopwright-Signature': signatureHeader(secrets, body, now),
            'Shopwright-Event-Id': view.eventId,
            'Shopwright-Topic': view.topic,
            'Shopwright-Delivery-Id': deliveryId
          },
          destination,
          signal
        );
    return await recordOutcome(ctx, view, claimed.attempts, claimed.firstAttemptAt, result);
  } finally {
    for (const lease of held) lease.release();
  }
}

/**
 * At the endpoint's or the destination's cap: this attempt waits its turn as a new job (not an
 * attempt: nothing is counted or failed), so the worker slot goes to another endpoint. Straight into the queue, not through the outbox: nothing commits with it (the
 * delivery row is already there), a deferral costs no database write, and if the add fails this
 * job fails and BullMQ runs it again (the sweeper covers a job lost with Redis).
 */
async function deferAlone(ctx: AppContext, deliveryId: string, subscriptionId: string, deferrals: number): Promise<DeliveryOutcome> {
  await requeueDeferred(ctx, { deliveryId, subscriptionId }, deferrals);
  return 'deferred';
}

/**
 * The job of attempts that waited for an in-flight cap (one delivery, or a batch's together): a new
 * delayed job, 0.5 s doubling with each wait up to 10 s, plus up to as much jitter.
 */
export async function requeueDeferred(ctx: AppContext, waiting: DeliveryRef | DeliveryRef[], deferrals: number): Promise<void> {
  const base = Math.min(BUSY_MAX_DELAY_MS, BUSY_DELAY_MS * 2 ** Math.min(deferrals, 10));
  const delay = Math.round(base + Math.random() * base);
  const payload = Array.isArray(waiting) ? { deliveries: waiting, deferrals: deferrals + 1 } : { ...waiting, deferrals: deferrals + 1 };
  await ctx.queues.get(webhookDeliveryJob.queue).add(webhookDeliveryJob.name, payload, { ...webhookDeliveryJob.options, delay });
}

const isSuccess = (code: number | null) => code !== null && code >= 200 && code < 300;
/** Standard Webhooks: a receiver answering 410 Gone wants no more deliveries; the subscription is disabled at once. */
const GONE = 410;
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
    // The common case, batched with the other attempts that succeeded meanwhile: one statement for all.
    await bookkeeping(ctx).succeeded.call({ storeId: view.storeId, id: view.id, subscriptionId: view.subscriptionId, statusCode: result.statusCode!, durationMs: result.durationMs, body: result.body });
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
    if (result.statusCode === GONE) await disableGoneEndpoint(trx as unknown as Sql, view);
    else await noteEndpointFailure(ctx, trx as unknown as Sql, view);
    return final ? 'failed' : 'retrying';
  });
}

/**
 * The receiver answered 410 Gone: the subscription is disabled now (no 3 days of retries), with its
 * other pending deliveries failed by their own next attempt (a disabled subscription's delivery fails).
 */
async function disableGoneEndpoint(trx: Sql, view: DeliveryView): Promise<void> {
  await trx('webhookSubscriptions')
    .where({ storeId: view.storeId, id: view.subscriptionId, enabled: true })
    .update({ enabled: false, disabledReason: 'the receiver answered 410 Gone', failingSince: trx.raw('coalesce(failing_since, now())'), updatedAt: trx.fn.now() });
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
