import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import type { DomainEvent, EmitEvent } from './domain-event.js';

export type { DomainEvent, DomainEventType, EmitEvent } from './domain-event.js';

/**
 * Runs `work` in a transaction; the modules' in-transaction reactions to the events it emitted run
 * last in that transaction (the webhooks' event rows: they exist exactly when the change commits),
 * and after it commits the events are published (awaited, so the caller's own next read already
 * sees their effects, e.g. a dropped cache entry). A rollback publishes nothing.
 */
export async function transactionWithEvents<T>(ctx: AppContext, work: (trx: Knex.Transaction, emit: EmitEvent) => Promise<T>): Promise<T> {
  const events: DomainEvent[] = [];
  const result = await ctx.db.transaction(async (trx) => {
    const value = await work(trx, (event) => events.push(event));
    await reactInTransaction(ctx, trx, events);
    return value;
  });
  await publishEvents(ctx, events);
  return result;
}

/** Each module's in-transaction reaction to the events, in the caller's transaction; a failure rolls the change back. */
export async function reactInTransaction(ctx: AppContext, trx: Knex.Transaction, events: DomainEvent[]): Promise<void> {
  for (const event of events) {
    for (const module of ctx.modules) {
      const react = module.onEventInTransaction?.[event.type] as ((ctx: AppContext, trx: Knex.Transaction, event: DomainEvent) => Promise<void>) | undefined;
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
