/** Something that changed, told to the modules that care once the change has committed. */
export type DomainEvent =
  /** `change` says what happened, for the emitters that know (webhook topics product.created/updated/deleted). */
  | { type: 'product.changed'; storeId: string; productIds: string[]; change?: 'created' | 'updated' | 'deleted' }
  /** Webhook topics order.<change> (order.created is written by the checkout's own statement). */
  | { type: 'order.changed'; storeId: string; orderId: string; change: 'fulfilled' | 'paid' | 'cancelled' | 'refunded' | 'updated' }
  /** Webhook topics dispute.created/updated: a Stripe dispute of an order's payment recorded or moved (order_disputes). */
  | { type: 'dispute.changed'; storeId: string; disputeId: string; change: 'created' | 'updated' }
  /** Webhook topics customer.created/updated. */
  | { type: 'customer.changed'; storeId: string; customerIds: string[]; change: 'created' | 'updated' }
  | { type: 'campaign.sent'; storeId: string; campaignId: string }
  /** A tracked job (the jobs table, /admin/jobs) finished for good. */
  | { type: 'job.finished'; storeId: string; jobId: string; outcome: 'completed' | 'failed' }
  | { type: 'inventory.changed'; storeId: string; variantIds: string[] }
  | { type: 'collection.changed'; storeId: string; collectionId: string }
  | { type: 'store.changed'; storeId: string };

export type DomainEventType = DomainEvent['type'];

/** Collects the events of one unit of work; they are published only if it commits. */
export type EmitEvent = (event: DomainEvent) => void;
