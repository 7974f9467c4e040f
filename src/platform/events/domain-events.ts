import type { Transaction } from '../../db/transaction.js';
import type { AppContext } from '../../context.js';
import type { DomainEvent, EmitEvent } from './domain-event.js';

export type { DomainEvent, DomainEventType, EmitEvent } from './domain-event.js';

/** Each module's in-transaction reaction to the events, in the caller's transaction; a failure rolls the change back. */
export async function reactInTransaction(ctx: AppContext, trx: Transaction, events: DomainEvent[]): Promise<void> {
  for (const event of events) {
    for (const module of ctx.modules) {
      const react = module.onEventInTransaction?.[event.type] as ((ctx: AppContext, trx: Transaction, event: DomainEvent) => Promise<void>) | undefined;
      if (react) await react(ctx, trx, event);
    }
  }
}

/**
 * Hands committed events to every installed module (`ctx.modules`) that subscribes to their type.
 * A failing handler is logged, not thrown: the change is done.
 */
export async function publishEvents(ctx: AppContext, events: DomainEvent[]): Promise<void> {
  for (const event of events) {
    for (const module of ctx.modules) {
      const handle = module.onEvent?.[event.type] as ((ctx: AppContext, event: DomainEvent) => Promise<void>) | undefined;
      if (!handle) continue;
      await handle(ctx, event).catch((error: Error) =>
        ctx.log.warn({ event: event.type, module: module.name, err: { message: error.message } }, 'domain event handler failed')
      );
    }
  }
}
