/**
 * The face of module webhooks: subscriptions, event rows written with each change, deliveries.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { listDeliveries, pingSubscription, redeliver } from './deliveries.js';
export { deliverWebhook, releaseIdleWebhookSlots } from './delivery.js';
export { deliverWebhookBatch } from './delivery-batch.js';
export { deliveryJobSqlLiterals, orderEventsCall } from './events.js';
export { webhooksModule } from './module.js';
export { createSubscription, deleteSubscription, getSubscription, listSubscriptions, rotateSubscriptionSecret, updateSubscription, type SubscriptionPatch } from './subscriptions.js';
export { sweepStuckDeliveries } from './sweep.js';
export { WEBHOOK_TOPICS, type WebhookTopic } from './topics.js';
