/** Something that changed, told to the modules that care once the change has committed. */
export type DomainEvent =
  /** `change` says what happened, for the emitters that know (webhook topics product.created/updated/deleted). */
  | { type: 'product.changed'; storeId: string; productIds: string[]; change?: 'created' | 'updated' | 'deleted' }
  | { type: 'order.changed'; storeId: string; orderId: string; change: 'fulfilled' }
  | { type: 'inventory.changed'; storeId: string; variantIds: string[] }
  | { type: 'collection.changed'; storeId: string; collectionId: string }
  | { type: 'store.changed'; storeId: string };

export type DomainEventType = DomainEvent['type'];

/** Collects the events of one unit of work; they are published only if it commits. */
export type EmitEvent = (event: DomainEvent) => void;
