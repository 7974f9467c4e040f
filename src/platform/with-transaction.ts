import type { AppContext } from '../context.js';
import { runStatementsAndCommit, type StatementCall } from '../db/prepared-statements.js';
import { transaction, type Transaction, type TransactionOptions } from '../db/transaction.js';
import { publishEvents, reactInTransaction } from './events/domain-events.js';
import type { DomainEvent, EmitEvent } from './events/domain-event.js';
import { ScopedStorage } from './scoped-storage.js';

/**
 * Set while a `withTransaction` work runs: a transaction opened inside it is not the outermost.
 * Only a request scope (an admin request's audit) reads `outermost`, so the work runs in it only
 * while one is in flight: a storefront checkout, or a job, turns no promise hooks on.
 */
const inTransaction = new ScopedStorage<true>();

/** The handles `withTransaction` gave out: their modules' `beforeCommit` runs before they commit. */
const managed = new WeakSet<object>();

/** Whether `trx` is a `withTransaction` handle, whose COMMIT the modules' `beforeCommit` precedes. */
export function runsBeforeCommit(trx: object): boolean {
  return managed.has(trx);
}

/**
 * The one transaction helper of the services: runs `work` in a transaction (db/transaction.ts)
 * with an `emit` for domain events. The modules' in-transaction reactions to those events run last
 * in that transaction (the webhooks' event rows: they exist exactly when the change commits), then,
 * the modules' `beforeCommit` (the audit log writes the entries recorded in the transaction to
 * `audit_pending` there; and, in the outermost transaction, the entry of an admin request whose
 * service wrote none: it commits with the change or not at all). The statements they hand back go
 * out with the COMMIT, in one round trip. After it commits
 * the events are published (awaited, so the caller's own next read already sees their effects,
 * e.g. a dropped cache entry). A rollback publishes nothing.
 */
export async function withTransaction<T>(
  ctx: AppContext,
  work: (trx: Transaction, emit: EmitEvent) => Promise<T>,
  options: TransactionOptions = {}
): Promise<T> {
  const events: DomainEvent[] = [];
  const outermost = inTransaction.getStore() !== true;
  const result = await transaction(
    ctx.db,
    async (trx) => {
      managed.add(trx);
      const value = outermost && ScopedStorage.requestScopesInFlight() ? await inTransaction.run(true, () => work(trx, (event) => events.push(event))) : await work(trx, (event) => events.push(event));
      if (events.length) await reactInTransaction(ctx, trx, events);
      const last: StatementCall[] = [];
      for (const module of ctx.modules) {
        const calls = module.beforeCommit ? await module.beforeCommit(ctx, trx, outermost) : undefined;
        if (calls) last.push(...calls);
      }
      // The modules' last statements and the COMMIT in one round trip; a failing one rolls it all back.
      if (last.length) await runStatementsAndCommit(trx, last);
      return value;
    },
    options
  );
  if (events.length) await publishEvents(ctx, events);
  return result;
}
