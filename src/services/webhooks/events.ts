import type { Sql } from '../../db/transaction.js';
import { webhookDeliveryJob } from '../../jobs/webhook-delivery.js';
import { enqueueJob } from '../outbox/enqueue.js';
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

/** New deliveries of an existing event (fan-out, redeliver), each with its first job. */
export async function queueDeliveries(trx: Sql, storeId: string, eventId: string, subscriptionIds: string[]): Promise<string[]> {
  const deliveries = await trx('webhookDeliveries')
    .insert(subscriptionIds.map((subscriptionId) => ({ subscriptionId, eventId, storeId })))
    .returning('id');
  for (const { id } of deliveries as Array<{ id: string }>) await enqueueJob(trx, webhookDeliveryJob, { deliveryId: id });
  return (deliveries as Array<{ id: string }>).map((d) => d.id);
}
