import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import type { DomainEvent, EmitEvent } from './domain-event.js';

export type { DomainEvent, DomainEventType, EmitEvent } from './domain-event.js';

/**
 * Runs `work` in a transaction and, after it commits, publishes the events it emitted (awaited, so
 * the caller's own next read already sees their effects, e.g. a dropped cache entry). A rollback
 * publishes nothing.
 */
export async function transactionWithEvents<T>(ctx: AppContext, work: (trx: Knex.Transaction, emit: EmitEvent) => Promise<T>): Promise<T> {
  const events: DomainEvent[] = [];
  const result = await ctx.db.transaction((trx) => work(trx, (event) => events.push(event)));
  await publishEvents(ctx, events);
  return result;
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
