import type { AppContext, Module } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { jobResource } from '../job-history/index.js';
import { adminResource, adminResources } from '../../platform/modules/registry.js';
import type { AdminResourceKind } from '../../platform/modules/contribution.js';
import { recordWebhookEvent, recordWebhookEvents, subscribersOf } from './events.js';
import { wakeRelayAfterCommit } from '../../platform/outbox/wake.js';
import type { WebhookTopic } from './topics.js';

/**
 * Events of one topic about some resources, each with the resource as the admin API shows it at
 * this moment (read in the transaction, after the change). A store with no subscription to the
 * topic pays one indexed read and nothing is read or written.
 */
async function recordEvents(
  ctx: AppContext,
  trx: Transaction,
  storeId: string,
  topic: WebhookTopic,
  kind: AdminResourceKind | null,
  ids: string[]
): Promise<void> {
  if (ids.length > 1) return recordEventBatches(ctx, trx, storeId, topic, kind, ids);
  return recordEventsWith(trx, storeId, topic, ids, (id) => (kind ? adminResource(ctx, trx, kind, storeId, id) : Promise.resolve({ id })));
}

/** Events per batch statement: a batch job's products (an import's 250, a bulk edit's 500) take one or two. */
const EVENT_BATCH = 500;

/**
 * Many resources of one event (a CSV import's or a bulk edit's batch): read in a few queries by
 * the owning module, and written with their deliveries and jobs by `record_webhook_events`, one
 * statement per EVENT_BATCH events (the same rows as one by one). Falls back to one by one when the
 * owner reads them one by one only.
 */
async function recordEventBatches(ctx: AppContext, trx: Transaction, storeId: string, topic: WebhookTopic, kind: AdminResourceKind | null, ids: string[]): Promise<void> {
  const db = trx as unknown as Sql;
  const subscribers = await subscribersOf(db, storeId, topic);
  if (!subscribers.length) return;
  let queued = 0;
  for (let i = 0; i < ids.length; i += EVENT_BATCH) {
    const chunk = ids.slice(i, i + EVENT_BATCH);
    const data = kind ? await adminResources(ctx, db, kind, storeId, chunk) : new Map(chunk.map((id) => [id, { id }]));
    if (!data) return recordEventsWith(trx, storeId, topic, ids.slice(i), (id) => adminResource(ctx, trx, kind!, storeId, id));
    const events = chunk.filter((id) => data.has(id)).map((id) => ({ resourceId: id, data: data.get(id) }));
    queued += await recordWebhookEvents(db, storeId, topic, events);
  }
  if (queued) wakeRelayAfterCommit(db);
}

async function recordEventsWith(trx: Transaction, storeId: string, topic: WebhookTopic, ids: string[], load: (id: string) => Promise<unknown>): Promise<void> {
  const db = trx as unknown as Sql;
  const subscribers = await subscribersOf(db, storeId, topic);
  if (!subscribers.length) return;
  for (const id of ids) {
    const data = await load(id);
    if (data) await recordWebhookEvent(db, { storeId, topic, resourceId: id, data }, subscribers);
  }
}

/**
 * The webhooks module: subscriptions, events and their deliveries. It turns domain events into
 * webhook events inside the transaction of the change (so an event exists exactly when its change
 * commits), with the resource as the admin API shows it at that moment. Topics written by SQL
 * instead: order.created (the checkout's statement) and inventory.low (a trigger), migration
 * 20261125013000.
 */
export const webhooksModule: Module = {
  name: 'webhooks',
  onEventInTransaction: {
    'product.changed': async (ctx, trx, event) => {
      if (!event.change) return;
      await recordEvents(ctx, trx, event.storeId, `product.${event.change}`, event.change === 'deleted' ? null : 'product', event.productIds);
    },
    'order.changed': (ctx, trx, event) => recordEvents(ctx, trx, event.storeId, `order.${event.change}`, 'order', [event.orderId]),
    'dispute.changed': (ctx, trx, event) => recordEvents(ctx, trx, event.storeId, `dispute.${event.change}`, 'dispute', [event.disputeId]),
    'customer.changed': (ctx, trx, event) => recordEvents(ctx, trx, event.storeId, `customer.${event.change}`, 'customer', event.customerIds),
    'campaign.sent': (ctx, trx, event) => recordEvents(ctx, trx, event.storeId, 'campaign.sent', 'campaign', [event.campaignId]),
    // Job runs belong to no module (job-history is shared): read here.
    'job.finished': (_ctx, trx, event) => recordEventsWith(trx, event.storeId, `job.${event.outcome}`, [event.jobId], (id) => jobResource(trx, event.storeId, id))
  }
};
