/** What a subscription can listen to (`ping` is sent only by POST …/{id}/ping, to that subscription). */
export const WEBHOOK_TOPICS = [
  'order.created',
  'order.paid',
  'order.fulfilled',
  'order.cancelled',
  'order.refunded',
  'order.updated',
  'dispute.created',
  'dispute.updated',
  'product.created',
  'product.updated',
  'product.deleted',
  'inventory.low',
  'customer.created',
  'customer.updated',
  'campaign.sent',
  'job.completed',
  'job.failed'
] as const;

export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number] | 'ping';
