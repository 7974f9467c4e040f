import type { Module } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { adminResource } from '../modules/registry.js';
import { recordWebhookEvent, subscribersOf } from './events.js';

/**
 * The webhooks module: subscriptions, events and their deliveries. It turns domain events into
 * webhook events inside the transaction of the change (so an event exists exactly when its change
 * commits), with the resource as the admin API shows it at that moment; a store with no
 * subscription to the topic pays one indexed read.
 */
export const webhooksModule: Module = {
  name: 'webhooks',
  onEventInTransaction: {
    'product.changed': async (ctx, trx, event) => {
      if (!event.change) return;
      const topic = `product.${event.change}` as const;
      const db = trx as unknown as Sql;
      const subscribers = await subscribersOf(db, event.storeId, topic);
      if (!subscribers.length) return;
      for (const id of event.productIds) {
        const data = event.change === 'deleted' ? { id } : await adminResource(ctx, trx as Transaction, 'product', event.storeId, id);
        if (data) await recordWebhookEvent(db, { storeId: event.storeId, topic, resourceId: id, data }, subscribers);
      }
    },
    'order.changed': async (ctx, trx, event) => {
      const topic = `order.${event.change}` as const;
      const db = trx as unknown as Sql;
      const subscribers = await subscribersOf(db, event.storeId, topic);
      if (!subscribers.length) return;
      const data = await adminResource(ctx, trx as Transaction, 'order', event.storeId, event.orderId);
      await recordWebhookEvent(db, { storeId: event.storeId, topic, resourceId: event.orderId, data }, subscribers);
    }
  }
};
