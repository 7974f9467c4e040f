import type { AppContext } from '../context.js';
import { transaction, type Transaction, type TransactionOptions } from '../db/transaction.js';
import { publishEvents, reactInTransaction } from './events/domain-events.js';
import type { DomainEvent, EmitEvent } from './events/domain-event.js';

/**
 * The one transaction helper of the services: runs `work` in a transaction (db/transaction.ts)
 * with an `emit` for domain events. The modules' in-transaction reactions to those events run last
 * in that transaction (the webhooks' event rows: they exist exactly when the change commits), and
 * after it commits the events are published (awaited, so the caller's own next read already sees
 * their effects, e.g. a dropped cache entry). A rollback publishes nothing.
 */
export async function withTransaction<T>(
  ctx: AppContext,
  work: (trx: Transaction, emit: EmitEvent) => Promise<T>,
  options: TransactionOptions = {}
): Promise<T> {
  const events: DomainEvent[] = [];
  const result = await transaction(
    ctx.db,
    async (trx) => {
      const value = await work(trx, (event) => events.push(event));
      if (events.length) await reactInTransaction(ctx, trx, events);
      return value;
    },
    options
  );
  if (events.length) await publishEvents(ctx, events);
  return result;
}
