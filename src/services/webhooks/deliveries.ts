import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { queueDeliveries, recordWebhookEvent } from './events.js';
import { findSubscription } from './subscriptions.js';
import { withTransaction } from '../../platform/with-transaction.js';

interface DeliveryLogRow {
  id: string;
  eventId: string;
  topic: string;
  version: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  responseBody: string | null;
  nextRetryAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
}

const toDeliveryDto = (row: DeliveryLogRow) => ({
  id: row.id,
  eventId: row.eventId,
  topic: row.topic,
  version: Number(row.version),
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.lastStatusCode,
  lastDurationMs: row.lastDurationMs,
  lastError: row.lastError,
  responseBody: row.responseBody,
  nextRetryAt: row.nextRetryAt,
  createdAt: row.createdAt,
  completedAt: row.completedAt
});

const deliveryQuery = (ctx: AppContext, storeId: string, subscriptionId: string) =>
  ctx
    .db('webhookDeliveries as d')
    .join('webhookEvents as e', 'e.id', 'd.eventId')
    .where({ 'd.storeId': storeId, 'd.subscriptionId': subscriptionId })
    .select(
      'd.id', 'd.eventId', 'e.topic', 'e.seq as version', 'd.status', 'd.attempts', 'd.lastStatusCode', 'd.lastDurationMs', 'd.lastError',
      'd.responseBody', 'd.nextRetryAt', 'd.createdAt', 'd.completedAt'
    );

/** Newest first, a page at a time. */
export async function listDeliveries(ctx: AppContext, storeId: string, subscriptionId: string, page: PageRequest) {
  await findSubscription(ctx, storeId, subscriptionId);
  const result = await keysetPage<DeliveryLogRow>(deliveryQuery(ctx, storeId, subscriptionId), { column: 'd.createdAt', direction: 'desc', tieBreaker: 'd.id' }, page);
  return { deliveries: result.items.map(toDeliveryDto), nextCursor: result.nextCursor };
}

async function deliveryDto(ctx: AppContext, storeId: string, subscriptionId: string, deliveryId: string) {
  const row = await deliveryQuery(ctx, storeId, subscriptionId).where('d.id', deliveryId).first();
  if (!row) throw notFound('Webhook delivery');
  return { delivery: toDeliveryDto(row as DeliveryLogRow) };
}

/** The same event again (same id, body and version) as a new delivery with its own log entry. */
export async function redeliver(ctx: AppContext, storeId: string, subscriptionId: string, deliveryId: string) {
  const original = await ctx.db('webhookDeliveries').where({ storeId, subscriptionId, id: deliveryId }).first('eventId');
  if (!original) throw notFound('Webhook delivery');
  const [id] = await withTransaction(ctx, (trx) => queueDeliveries(trx as unknown as Sql, storeId, original.eventId, [subscriptionId]));
  return deliveryDto(ctx, storeId, subscriptionId, id!);
}

/** A `ping` event to this subscription only. */
export async function pingSubscription(ctx: AppContext, storeId: string, subscriptionId: string) {
  const subscription = await findSubscription(ctx, storeId, subscriptionId);
  const [id] = await withTransaction(ctx, (trx) =>
    recordWebhookEvent(trx as unknown as Sql, { storeId, topic: 'ping', resourceId: subscription.id, data: { webhookId: subscription.id, url: subscription.url } }, [subscriptionId])
  );
  return deliveryDto(ctx, storeId, subscriptionId, id!);
}
