import { defineStatement, type StatementCall } from '../../db/prepared-statements.js';
import type { Sql } from '../../db/transaction.js';
import { DELIVERY_BATCH_MAX, webhookDeliveryJob } from '../../jobs/webhook-delivery.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import { wakeRelayAfterCommit } from '../../platform/outbox/wake.js';
import type { WebhookTopic } from './topics.js';

export interface WebhookEventInput {
  storeId: string;
  topic: WebhookTopic;
  resourceId: string | null;
  /** The resource in the admin API's shape, as of this change. */
  data: unknown;
}

/** Enabled subscriptions of the store to a topic (none: nothing is written). */
export async function subscribersOf(db: Sql, storeId: string, topic: WebhookTopic): Promise<string[]> {
  const rows = await db('webhookSubscriptions').where({ storeId, enabled: true }).whereRaw('? = any(topics)', [topic]).select('id');
  return rows.map((row: { id: string }) => row.id);
}

/**
 * Writes an event, one delivery per subscription and each delivery's job into the outbox, all in
 * the caller's transaction (the transaction of the change): the event exists exactly when the
 * change commits, and the relay then moves the jobs. Returns the delivery ids.
 */
export async function recordWebhookEvent(trx: Sql, event: WebhookEventInput, subscriptionIds: string[]): Promise<string[]> {
  if (!subscriptionIds.length) return [];
  const [row] = await trx('webhookEvents')
    .insert({ storeId: event.storeId, topic: event.topic, resourceId: event.resourceId, data: JSON.stringify(event.data ?? null) })
    .returning('id');
  return queueDeliveries(trx, event.storeId, row.id, subscriptionIds);
}

/**
 * Many events of one topic (`[{ resourceId, data }]`) with one delivery per enabled subscription
 * and each delivery's job, in one statement (`record_webhook_events`, migration 20261125013000),
 * in the caller's transaction. Returns the number of deliveries queued; the caller wakes the relay.
 */
export async function recordWebhookEvents(trx: Sql, storeId: string, topic: WebhookTopic, events: Array<{ resourceId: string | null; data: unknown }>): Promise<number> {
  if (!events.length) return 0;
  const job = deliveryJobBindings();
  const result = (await trx.raw('select record_webhook_events(?, ?, ?::jsonb, ?, ?, ?::jsonb) as queued', [
    storeId,
    topic,
    JSON.stringify(events.map((event) => ({ resourceId: event.resourceId, data: event.data ?? null }))),
    job.queue,
    job.job,
    job.options
  ])) as { rows: Array<{ queued: number }> };
  return result.rows[0]?.queued ?? 0;
}

/**
 * New deliveries of an existing event (fan-out, redeliver) with their first attempts' jobs: up to
 * DELIVERY_BATCH_MAX deliveries to a job, as record_webhook_events writes them (a lone delivery's
 * job names it alone).
 */
export async function queueDeliveries(trx: Sql, storeId: string, eventId: string, subscriptionIds: string[]): Promise<string[]> {
  const deliveries = (await trx('webhookDeliveries')
    .insert(subscriptionIds.map((subscriptionId) => ({ subscriptionId, eventId, storeId })))
    .returning(['id', 'subscriptionId'])) as Array<{ id: string; subscriptionId: string }>;
  for (let start = 0; start < deliveries.length; start += DELIVERY_BATCH_MAX) {
    const batch = deliveries.slice(start, start + DELIVERY_BATCH_MAX).map(({ id, subscriptionId }) => ({ deliveryId: id, subscriptionId }));
    await enqueueJob(trx, webhookDeliveryJob, batch.length === 1 ? batch[0]! : { deliveries: batch });
  }
  return deliveries.map((d) => d.id);
}

/** The bindings record_webhook_events (migration 20261125013000) takes after the events: the delivery job. */
export const deliveryJobBindings = () => ({
  queue: webhookDeliveryJob.queue,
  job: webhookDeliveryJob.name,
  options: JSON.stringify(webhookDeliveryJob.options)
});

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * `order.created` (and `order.paid` for an order placed paid) for the checkout: ONE statement, for
 * the caller to pipeline after the order insert in its transaction (its data is the order DTO
 * built before the insert; the order number and timestamps the insert drew are filled in from the
 * row). A store with no subscription to the topics costs one indexed read of its subscriptions.
 */
const ORDER_EVENTS = defineStatement(`select coalesce(sum(record_webhook_events(o.store_id, t.topic,
         jsonb_build_array(jsonb_build_object('resourceId', o.id, 'data', :data::jsonb || jsonb_build_object(
           'number', o.number,
           'createdAt', to_char(o.created_at at time zone 'UTC', ${ISO_MS}),
           'updatedAt', to_char(o.updated_at at time zone 'UTC', ${ISO_MS})))),
         :queue, :job, :options::jsonb)), 0)::int as deliveries
    from orders o cross join unnest(:topics::text[]) as t(topic)
   where o.id = :orderId
     and exists (select 1 from webhook_subscriptions s where s.store_id = o.store_id and s.enabled and s.topics && :topics::text[])`);

export function orderEventsCall(orderId: string, topics: WebhookTopic[], data: unknown): StatementCall {
  return {
    statement: ORDER_EVENTS,
    values: { orderId, topics: `{${topics.join(',')}}`, data: JSON.stringify(data), ...deliveryJobBindings() },
    ran: wakeRelayAfterCommit
  };
}

/** The delivery job's last three arguments of record_webhook_events as SQL literals, for a statement built as text (the CSV import's). */
export function deliveryJobSqlLiterals(): string {
  const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
  return `${quote(webhookDeliveryJob.queue)}, ${quote(webhookDeliveryJob.name)}, ${quote(JSON.stringify(webhookDeliveryJob.options))}::jsonb`;
}
